import { autocompletion, closeBrackets, completionKeymap } from "@codemirror/autocomplete"
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands"
import { MySQL, PostgreSQL, sql, SQLite } from "@codemirror/lang-sql"
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting, syntaxTree } from "@codemirror/language"
import { Compartment, EditorState, Prec } from "@codemirror/state"
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from "@codemirror/view"
import { useEffect, useRef } from "react"

export interface SqlEditorApi {
  /** The selection when there is one, else the statement under the cursor (without its `;`). */
  readonly runText: () => string
  readonly setText: (text: string) => void
  readonly text: () => string
}

const DIALECTS = { sqlite: SQLite, postgresql: PostgreSQL, mysql: MySQL } as const

/** The statement around `pos`: the last top-level Statement node that starts at or before it (lang-sql's tree). */
const statementAt = (state: EditorState, pos: number): string => {
  const statements = syntaxTree(state).topNode.getChildren("Statement")
  const around = [...statements].reverse().find((node) => node.from <= pos) ?? statements[0]
  const text = around === undefined ? state.doc.toString() : state.sliceDoc(around.from, around.to)
  return text.trim().replace(/;\s*$/, "")
}

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--bg-elev)", color: "var(--fg)", border: "1px solid var(--border)", borderRadius: "4px", minHeight: "140px" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--row-hover)" },
  "&.cm-focused": { outline: "2px solid var(--accent)" }
})

/**
 * The console's SQL editor (issue 27): CodeMirror 6 with the connection's SQL dialect, highlighting, completion of
 * table and column names, Cmd/Ctrl+Enter to run. Loaded on demand (a dynamic import), so the rest of the UI does not
 * carry the editor.
 */
const SqlEditor = ({ initial, dialect, schema, onRun, onReady }: {
  readonly initial: string
  readonly dialect: "sqlite" | "postgresql" | "mysql"
  readonly schema: Readonly<Record<string, ReadonlyArray<string>>>
  readonly onRun: () => void
  readonly onReady: (api: SqlEditorApi) => void
}) => {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(undefined)
  const language = useRef(new Compartment())
  const runRef = useRef(onRun)
  runRef.current = onRun

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { runRef.current(); return true } }])),
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          closeBrackets(),
          autocompletion(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          language.current.of(sql({ dialect: DIALECTS[dialect], upperCaseKeywords: true })),
          placeholder("SELECT … (Cmd/Ctrl+Enter runs the statement under the cursor)"),
          EditorView.contentAttributes.of({ "aria-label": "SQL" }),
          theme
        ]
      })
    })
    view.current = editor
    onReady({
      runText: () => {
        const { state } = editor
        const selection = state.selection.main
        return selection.empty ? statementAt(state, selection.head) : state.sliceDoc(selection.from, selection.to).trim()
      },
      setText: (text) => editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } }),
      text: () => editor.state.doc.toString()
    })
    return () => editor.destroy()
    // the editor is created once; the schema is swapped in below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  useEffect(() => {
    view.current?.dispatch({
      effects: language.current.reconfigure(sql({ dialect: DIALECTS[dialect], upperCaseKeywords: true, schema: Object.fromEntries(Object.entries(schema).map(([t, c]) => [t, [...c]])) }))
    })
  }, [schema, dialect])

  return <div ref={host} className="sql-editor" />
}

export default SqlEditor
