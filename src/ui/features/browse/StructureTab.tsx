import { lazy, Suspense, useState } from "react"
import type { UiConnection, UiStructure } from "../../../domain/UiSchemas.ts"
import { useLoad } from "../../api.ts"

const StructureDdl = lazy(() => import("./StructureDdl.tsx"))

/** PostgreSQL gives index columns as it would write them ("Mixed Case" quoted); the columns list has the bare names. */
const bareName = (name: string) => /^"(?:[^"]|"")*"$/.test(name) ? name.slice(1, -1).replaceAll("\"\"", "\"") : name

/** The Key cell: primary, unique (alone or with other columns), and each foreign key as → table.column. */
const keysOf = (s: UiStructure, column: string, primary: ReadonlyArray<string>): ReadonlyArray<string> => {
  const keys: Array<string> = []
  if (primary.includes(column)) keys.push(primary.length > 1 ? `primary (${primary.join(", ")})` : "primary")
  const samePrimary = (columns: ReadonlyArray<string>) => columns.length === primary.length && columns.every((c) => primary.includes(c))
  for (const index of s.indexes) {
    const columns = index.columns.map(bareName)
    if (!index.unique || !columns.includes(column) || samePrimary(columns)) continue
    keys.push(columns.length === 1 ? "unique" : `unique (${columns.join(", ")})`)
  }
  for (const key of s.foreignKeys) {
    key.columns.forEach((c, i) => {
      if (c === column) keys.push(`→ ${key.referencedTable}.${key.referencedColumns[i] ?? ""}`)
    })
  }
  return [...new Set(keys)]
}

const None = ({ read = true }: { readonly read?: boolean }) => <p className="muted">{read ? "None." : "Not read (see the note above)."}</p>

/** Copies the DDL; a button, so Tab reaches it and Enter or Space copies. */
const CopyButton = ({ text }: { readonly text: string }) => {
  const [status, setStatus] = useState("")
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setStatus("Copied."),
      () => setStatus("The browser refused the clipboard: select the text and press Ctrl+C.")
    )
  return (
    <span className="row">
      <button onClick={() => void copy()} aria-label="Copy DDL">Copy</button>
      <span role="status" className="muted">{status}</span>
    </span>
  )
}

/** A search collection's structure, as before (S8-b, S4-c: read-only): fields and the collection schema. */
const CollectionStructure = ({ s }: { readonly s: UiStructure }) => (
  <>
    <table className="list" aria-label="Columns">
      <thead><tr><th>Column</th><th>Type</th><th>Key</th><th>Nullable</th><th>Sortable</th></tr></thead>
      <tbody>{s.columns.map((c) => (
        <tr key={c.name}><td>{c.name}</td><td>{c.type}</td><td>{c.isPrimaryKey ? "primary" : ""}</td><td>{c.nullable ? "yes" : "no"}</td><td>{c.sortable ? "yes" : <span className="muted" title={c.sortNote ?? ""}>no</span>}</td></tr>
      ))}</tbody>
    </table>
    <h3>Collection schema</h3>
    <pre className="json">{s.definition}</pre>
  </>
)

/** A SQL table's structure: columns with default, key and comment; indexes; keys both ways; checks; triggers; DDL. */
const TableStructure = ({ s, dialect }: { readonly s: UiStructure; readonly dialect: "sqlite" | "postgresql" | "mysql" }) => {
  const primary = s.columns.filter((c) => c.isPrimaryKey).map((c) => c.name)
  const details = new Map((s.columnDetails ?? []).map((d) => [d.name, d]))
  const checks = s.checks ?? []
  const triggers = s.triggers ?? []
  const incoming = s.referencedBy ?? []
  return (
    <>
      {(s.notes ?? []).map((note) => <p key={note} className="note">{note}</p>)}
      <table className="list" aria-label="Columns">
        <thead><tr><th>Column</th><th>Type</th><th>Nullable</th><th>Default</th><th>Key</th><th>Comment</th></tr></thead>
        <tbody>{s.columns.map((c) => {
          const detail = details.get(c.name)
          return (
            <tr key={c.name}>
              <td>{c.name}</td><td>{c.type}</td><td>{c.nullable ? "yes" : "no"}</td>
              <td><code>{detail?.defaultValue ?? ""}</code></td>
              <td>{keysOf(s, c.name, primary).join(", ")}</td>
              <td>{detail?.comment ?? ""}</td>
            </tr>
          )
        })}</tbody>
      </table>
      <h3>Indexes</h3>
      {s.indexes.length === 0 ? <None /> : (
        <table className="list" aria-label="Indexes">
          <thead><tr><th>Name</th><th>Columns</th><th>Unique</th></tr></thead>
          <tbody>{s.indexes.map((i) => <tr key={i.name}><td>{i.name}</td><td>{i.columns.map(bareName).join(", ")}</td><td>{i.unique ? "yes" : "no"}</td></tr>)}</tbody>
        </table>
      )}
      <h3>Foreign keys</h3>
      {s.foreignKeys.length === 0 ? <None /> : (
        <table className="list" aria-label="Foreign keys">
          <thead><tr><th>Columns</th><th>References</th><th>On update</th><th>On delete</th></tr></thead>
          <tbody>{s.foreignKeys.map((k) => (
            <tr key={`${k.columns.join()}→${k.references}`}><td>{k.columns.join(", ")}</td><td>{k.references}</td><td>{k.onUpdate ?? ""}</td><td>{k.onDelete ?? ""}</td></tr>
          ))}</tbody>
        </table>
      )}
      <h3>Referenced by</h3>
      {incoming.length === 0 ? <None read={s.referencedBy !== undefined} /> : (
        <table className="list" aria-label="Referenced by">
          <thead><tr><th>Table</th><th>Columns</th><th>Referenced columns</th></tr></thead>
          <tbody>{incoming.map((r) => (
            <tr key={`${r.table}(${r.columns.join()})${r.name ?? ""}`}><td>{r.table}</td><td>{r.columns.join(", ")}</td><td>{r.referencedColumns.join(", ")}</td></tr>
          ))}</tbody>
        </table>
      )}
      <h3>Checks</h3>
      {checks.length === 0 ? <None read={s.checks !== undefined} /> : (
        <table className="list" aria-label="Checks">
          <thead><tr><th>Name</th><th>Condition</th></tr></thead>
          <tbody>{checks.map((c, i) => <tr key={`${c.name ?? ""}${i}`}><td>{c.name ?? <span className="muted">(unnamed)</span>}</td><td><code>{c.expression}</code></td></tr>)}</tbody>
        </table>
      )}
      <h3>Triggers</h3>
      {triggers.length === 0 ? <None read={s.triggers !== undefined} /> : (
        <table className="list" aria-label="Triggers">
          <thead><tr><th>Name</th><th>Timing</th><th>Event</th><th>Definition</th></tr></thead>
          <tbody>{triggers.map((t) => (
            <tr key={t.name}><td>{t.name}</td><td>{t.timing}</td><td>{t.event}</td><td><pre className="trigger-definition">{t.definition}</pre></td></tr>
          ))}</tbody>
        </table>
      )}
      <div className="row" style={{ justifyContent: "space-between", alignItems: "baseline" }}>
        <h3>DDL</h3>
        <CopyButton text={s.definition} />
      </div>
      <Suspense fallback={<pre className="json">{s.definition}</pre>}>
        <StructureDdl text={s.definition} dialect={dialect} label="DDL" />
      </Suspense>
    </>
  )
}

/** Structure: read-only (S8-b for search; editing a SQL table's structure is not built). */
export const StructureTab = ({ connection, table, database }: { readonly connection: UiConnection; readonly table: string; readonly database?: string | undefined }) => {
  const structure = useLoad((client) => client.browse.structure({ path: { id: connection.id, table }, urlParams: database === undefined ? {} : { database } }), [connection.id, table, database])
  if (structure.error !== undefined) return <div className="error">{structure.error}</div>
  if (structure.data === undefined) return <p className="progress">Reading the structure…</p>
  const s = structure.data
  return (
    <div>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <p className="note">Read-only{connection.type === "search" ? ": the structure of a collection is changed from the console." : "."}</p>
        <button onClick={structure.reload}>Reload structure</button>
      </div>
      {connection.type === "search" ? <CollectionStructure s={s} /> : <TableStructure s={s} dialect={connection.type} />}
    </div>
  )
}
