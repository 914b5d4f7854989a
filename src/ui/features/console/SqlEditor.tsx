import { autocompletion, closeBrackets, closeCompletion, type CompletionContext, type CompletionSource, completionKeymap } from "@codemirror/autocomplete"
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands"
import { keywordCompletionSource, MySQL, PostgreSQL, schemaCompletionSource, sql, SQLite } from "@codemirror/lang-sql"
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting, syntaxTree } from "@codemirror/language"
import { Compartment, EditorState, Prec, type Range, StateField } from "@codemirror/state"
import { Decoration, type DecorationSet, drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from "@codemirror/view"
import { useEffect, useRef } from "react"
import { formatSql } from "./formatSql.ts"

export interface SqlEditorApi {
  /** The selection when there is one, else the statement under the cursor (without its `;`). */
  readonly runText: () => string
  /** The statement under the cursor, whatever is selected. */
  readonly current: () => string
  /** The selected text ("" when nothing is selected). */
  readonly selection: () => string
  /** Every statement of the editor, in order (without their `;`). */
  readonly statements: () => ReadonlyArray<string>
  readonly setText: (text: string) => void
  readonly text: () => string
  readonly focus: () => void
  /** Closes the completion list (a run starts: it would cover the editor). */
  readonly closePopups: () => void
  /** Formats the selection, or the whole text when nothing is selected, as one undoable change (D-102); the formatter's complaint when it cannot. */
  readonly format: () => string | undefined
}

const DIALECTS = { sqlite: SQLite, postgresql: PostgreSQL, mysql: MySQL } as const
type Dialect = keyof typeof DIALECTS
type Schema = Readonly<Record<string, ReadonlyArray<string>>>

const clean = (text: string) => text.trim().replace(/;\s*$/, "").trim()

/** The range of the statement around `pos`: the last top-level Statement node that starts at or before it (lang-sql's tree). */
const statementRange = (state: EditorState, pos: number): { readonly from: number; readonly to: number } => {
  const statements = syntaxTree(state).topNode.getChildren("Statement")
  const around = [...statements].reverse().find((node) => node.from <= pos) ?? statements[0]
  return around === undefined ? { from: 0, to: state.doc.length } : { from: around.from, to: around.to }
}

const statementAt = (state: EditorState, pos: number): string => {
  const { from, to } = statementRange(state, pos)
  return clean(state.sliceDoc(from, to))
}

const currentMark = Decoration.mark({ class: "cm-current-statement" })

/** The statement Cmd/Ctrl+Enter would run is tinted, so the user sees what runs before it does. */
const currentStatement = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update: (_, transaction) => {
    const { state } = transaction
    if (state.doc.length === 0 || !state.selection.main.empty) return Decoration.none
    const { from, to } = statementRange(state, state.selection.main.head)
    const marks: Array<Range<Decoration>> = []
    // leading blank lines are not part of what runs
    const text = state.sliceDoc(from, to)
    const start = from + (text.length - text.trimStart().length)
    if (to > start) marks.push(currentMark.range(start, to))
    return Decoration.set(marks)
  },
  provide: (field) => EditorView.decorations.from(field)
})

/**
 * Completion: table and column names from the connection, and keywords, except after `name.`, where only the
 * columns (or a schema's tables) of that name can follow.
 */
const completion = (dialect: Dialect, schema: Schema): CompletionSource => {
  const names = schemaCompletionSource({ dialect: DIALECTS[dialect], schema: Object.fromEntries(Object.entries(schema).map(([t, c]) => [t, [...c]])) })
  const keywords = keywordCompletionSource(DIALECTS[dialect], true)
  return async (context: CompletionContext) => {
    const qualified = context.matchBefore(/[\w$"`\]]\.[\w$"`]*$/) !== null
    const fromNames = await names(context)
    if (qualified) return fromNames
    const fromKeywords = await keywords(context)
    if (fromNames === null) return fromKeywords
    if (fromKeywords === null) return fromNames
    return { ...fromNames, options: [...fromNames.options, ...fromKeywords.options] }
  }
}

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--bg-elev)", color: "var(--fg)", border: "1px solid var(--border)", borderRadius: "4px", height: "100%" },
  ".cm-scroller": { overflow: "auto" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "transparent" },
  ".cm-current-statement": { backgroundColor: "var(--row-hover)" },
  "&.cm-focused": { outline: "2px solid var(--accent)" }
})

/**
 * The console's SQL editor: CodeMirror 6 with the connection's SQL dialect, highlighting, completion of table and
 * column names, wrapped lines, the statement under the cursor tinted; Shift+Alt+F formats (D-102), Cmd/Ctrl+/ toggles
 * `-- ` line comments (CodeMirror's toggleComment with lang-sql's comment tokens); Cmd/Ctrl+Enter runs it (or the selection),
 * Cmd/Ctrl+Shift+Enter runs every statement. Loaded on demand (a dynamic import), so the rest of the UI does not
 * carry the editor.
 */
const SqlEditor = ({ initial, dialect, schema, onRun, onRunAll, onFormat, onChange, onReady }: {
  readonly initial: string
  readonly dialect: Dialect
  readonly schema: Schema
  readonly onRun: () => void
  readonly onRunAll: () => void
  readonly onFormat: () => void
  readonly onChange?: (text: string) => void
  readonly onReady: (api: SqlEditorApi) => void
}) => {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(undefined)
  const language = useRef(new Compartment())
  const completer = useRef(new Compartment())
  const handlers = useRef({ onRun, onRunAll, onFormat, onChange })
  handlers.current = { onRun, onRunAll, onFormat, onChange }
  const dialectNow = useRef(dialect)
  dialectNow.current = dialect

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          Prec.highest(keymap.of([
            { key: "Mod-Shift-Enter", run: () => { handlers.current.onRunAll(); return true } },
            { key: "Mod-Enter", run: () => { handlers.current.onRun(); return true } },
            { key: "Shift-Alt-f", run: () => { handlers.current.onFormat(); return true } }
          ])),
          lineNumbers(),
          history(),
          drawSelection(),
          highlightActiveLine(),
          bracketMatching(),
          closeBrackets(),
          completer.current.of(autocompletion({ override: [completion(dialect, schema)] })),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          language.current.of(sql({ dialect: DIALECTS[dialect], upperCaseKeywords: true })),
          currentStatement,
          EditorView.lineWrapping,
          EditorView.updateListener.of((update) => { if (update.docChanged) handlers.current.onChange?.(update.state.doc.toString()) }),
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
      current: () => statementAt(editor.state, editor.state.selection.main.head),
      selection: () => {
        const selection = editor.state.selection.main
        return editor.state.sliceDoc(selection.from, selection.to).trim()
      },
      statements: () => {
        const { state } = editor
        const nodes = syntaxTree(state).topNode.getChildren("Statement")
        const all = nodes.length === 0 ? [state.doc.toString()] : nodes.map((node) => state.sliceDoc(node.from, node.to))
        return all.map(clean).filter((text) => text !== "")
      },
      setText: (text) => editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } }),
      text: () => editor.state.doc.toString(),
      focus: () => editor.focus(),
      closePopups: () => { closeCompletion(editor) },
      format: () => {
        const { state } = editor
        const selection = state.selection.main
        const [from, to] = selection.empty ? [0, state.doc.length] : [selection.from, selection.to]
        const before = state.sliceDoc(from, to)
        if (before.trim() === "") return undefined
        let after: string
        try {
          after = formatSql(before, dialectNow.current)
        } catch (e) {
          return (e as Error).message
        }
        if (after === before) return undefined
        // one transaction: one Undo step brings the text back as typed
        editor.dispatch({
          changes: { from, to, insert: after },
          selection: selection.empty ? { anchor: Math.min(selection.head, after.length) } : { anchor: from, head: from + after.length },
          userEvent: "format",
          scrollIntoView: true
        })
        return undefined
      }
    })
    return () => editor.destroy()
    // the editor is created once; the schema is swapped in below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  useEffect(() => {
    view.current?.dispatch({
      effects: [
        language.current.reconfigure(sql({ dialect: DIALECTS[dialect], upperCaseKeywords: true })),
        completer.current.reconfigure(autocompletion({ override: [completion(dialect, schema)] }))
      ]
    })
  }, [schema, dialect])

  return <div ref={host} className="sql-editor" />
}

export default SqlEditor
