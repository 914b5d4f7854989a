import { defaultKeymap, history, historyKeymap } from "@codemirror/commands"
import { json, jsonParseLinter } from "@codemirror/lang-json"
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language"
import { EditorState, Prec } from "@codemirror/state"
import { EditorView, keymap, lineNumbers } from "@codemirror/view"
import { useEffect, useRef } from "react"
import { viewerText } from "../../grid/cellTypes.ts"

/**
 * Above this size (the panel's `LARGE_JSON`) the work is spread over tasks, one frame each: the panel's render, then
 * the pretty-print of a value given on one line, then the editor's set-up.
 */
const LARGE = 256 * 1024
const later = (step: () => void) => setTimeout(step, 0)

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--bg-elev)", color: "var(--fg)", border: "1px solid var(--border)", borderRadius: "4px", maxHeight: "320px" },
  ".cm-scroller": { overflow: "auto" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", border: "none" },
  "&.cm-focused": { outline: "2px solid var(--accent)" }
})

/** lang-json's parse linter, read as one plain sentence (the first problem), or undefined when the text is JSON. */
const problemOf = (view: EditorView): string | undefined => {
  if (view.state.doc.length === 0) return undefined
  const first = jsonParseLinter()(view)[0]
  if (first === undefined) return undefined
  const line = view.state.doc.lineAt(Math.min(first.from, view.state.doc.length)).number
  return `Not valid JSON (line ${line}): ${first.message}`
}

/**
 * The row detail's JSON editor: CodeMirror 6 with lang-json (highlighting, bracket matching) and lang-json's parse
 * linter, whose first problem is reported on every change so an invalid value cannot be staged. Loaded on demand.
 */
const JsonEditor = ({ initial, label, readOnly, onChange, onSubmit }: {
  readonly initial: string
  readonly label: string
  readonly readOnly: boolean
  readonly onChange: (text: string, problem: string | undefined) => void
  /** Ctrl/Cmd+Enter: the panel's "Stage changes" (not CodeMirror's insert-blank-line). */
  readonly onSubmit: () => void
}) => {
  const host = useRef<HTMLDivElement>(null)
  const changed = useRef(onChange)
  changed.current = onChange
  const submit = useRef(onSubmit)
  submit.current = onSubmit
  useEffect(() => {
    let editor: EditorView | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const create = (doc: string) => {
      editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc,
        extensions: [
          Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { submit.current(); return true } }])),
          lineNumbers(),
          history(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          json(),
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString(), problemOf(update.view))
          }),
          theme
        ]
      })
      })
    }
    if (initial.length <= LARGE) create(initial)
    else {
      timer = later(() => {
        const doc = initial.slice(0, 200).includes("\n") ? initial : viewerText(initial)
        timer = later(() => create(doc))
      })
    }
    return () => {
      clearTimeout(timer)
      editor?.destroy()
    }
    // created once per value: the panel remounts it for another row
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  return <div ref={host} className="json-editor" />
}

export default JsonEditor
