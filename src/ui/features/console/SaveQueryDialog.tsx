import { Either } from "effect"
import { useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { Dialog } from "../../shell/Dialog.tsx"
import { CuratedToolFields, definitionOf, draftReady, emptyDraft, parameterNames, suggestedName, type ToolDraft } from "../mcp/CuratedToolForm.tsx"

/**
 * The console's Save dialog: the statement kept as a saved query and, with "Expose to AI clients", also as a curated
 * tool (D-90) on this connection, its `:name` parameters typed here. The tool is saved first (the server checks it as
 * a whole and may refuse it), then the query. Cmd/Ctrl+Enter saves; Esc closes.
 */
export const SaveQueryDialog = ({ connection, text, initialName, onClose, onSaved }: {
  readonly connection: UiConnection
  readonly text: string
  readonly initialName: string
  readonly onClose: () => void
  readonly onSaved: (message: string) => void
}) => {
  const [name, setName] = useState(initialName)
  const [expose, setExpose] = useState(false)
  const [draft, setDraft] = useState<ToolDraft>(() => emptyDraft(suggestedName(initialName)))
  const [nameTouched, setNameTouched] = useState(false)
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const curated = useLoad((client) => client.mcp.curatedTools(), [])
  const taken = (curated.data?.tools ?? []).map((tool) => tool.name)
  const dialect = connection.type === "search" ? undefined : connection.type
  const found = dialect === undefined ? Either.left("Only SQL statements can be exposed from the console.") : parameterNames(text, dialect)
  const names = Either.getOrElse(found, () => [] as ReadonlyArray<string>)
  const namesProblem = Either.isLeft(found) ? found.left : undefined

  const rename = (next: string) => {
    setName(next)
    if (!nameTouched) setDraft({ ...draft, name: suggestedName(next) })
  }
  const changeDraft = (next: ToolDraft) => {
    if (next.name !== draft.name) setNameTouched(true)
    setDraft(next)
  }
  const save = async () => {
    setError(undefined)
    if (name.trim() === "") return setError("Give the query a name.")
    setBusy(true)
    try {
      let message = `Saved the query ${name.trim()}.`
      if (expose) {
        const tool = definitionOf(draft, names, { connection: connection.id, sql: text })
        if (Either.isLeft(tool)) return setError(tool.left)
        message = (await call((client) => client.mcp.saveCuratedTool({ payload: { tool: tool.right, replacing: null } }))).message
      }
      await call((client) => client.work.saveQuery({ payload: { name: name.trim(), text, connectionId: connection.id } }))
      onSaved(message)
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  const ready = !busy && (!expose || draftReady(draft, taken, namesProblem))
  return (
    <Dialog title="Save query" onClose={onClose} wide>
      <div onKeyDown={(e) => { if (e.key === "Enter" && (e.metaKey || e.ctrlKey) && ready) { e.preventDefault(); void save() } }}>
        <label className="row">Name <input data-autofocus aria-label="Saved query name" value={name} onChange={(e) => rename(e.target.value)} /></label>
        <pre className="mono" style={{ maxHeight: 120, overflow: "auto" }}>{text}</pre>
        <label className="row">
          <input type="checkbox" aria-label="Expose to AI clients" checked={expose} disabled={dialect === undefined} onChange={(e) => setExpose(e.target.checked)} />
          Expose to AI clients (a tool they call by name with typed arguments, bound as values)
        </label>
        {expose && <CuratedToolFields draft={draft} onChange={changeDraft} names={names} namesProblem={namesProblem} taken={taken} />}
        {error !== undefined && <div className="error" role="alert">{error}</div>}
        <div className="row">
          <button className="primary" disabled={!ready} onClick={() => void save()}>Save</button>
          <button onClick={onClose}>Cancel</button>
        </div>
      </div>
    </Dialog>
  )
}
