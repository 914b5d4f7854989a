import { MySQL, PostgreSQL, sql, SQLite } from "@codemirror/lang-sql"
import { defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language"
import { EditorState } from "@codemirror/state"
import { EditorView } from "@codemirror/view"
import { useEffect, useRef } from "react"

const DIALECTS = { sqlite: SQLite, postgresql: PostgreSQL, mysql: MySQL } as const

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--bg-elev)", color: "var(--fg)", border: "1px solid var(--border)", borderRadius: "4px", maxHeight: "480px" },
  ".cm-scroller": { overflow: "auto" },
  ".cm-content": { fontFamily: "ui-monospace, monospace", padding: "8px 0" }
})

/**
 * A DDL text highlighted by CodeMirror 6 with the connection's SQL dialect, read-only and not editable (no caret, not
 * in the tab order: the Copy button next to it is). Loaded on demand like the console's editor.
 */
const StructureDdl = ({ text, dialect, label }: { readonly text: string; readonly dialect: keyof typeof DIALECTS; readonly label: string }) => {
  const host = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const view = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: text,
        extensions: [
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          sql({ dialect: DIALECTS[dialect], upperCaseKeywords: true }),
          EditorView.contentAttributes.of({ "aria-label": label, "aria-readonly": "true" }),
          theme
        ]
      })
    })
    return () => view.destroy()
  }, [text, dialect, label])
  return <div ref={host} className="ddl-view" />
}

export default StructureDdl
