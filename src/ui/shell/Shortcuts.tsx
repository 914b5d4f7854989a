import { useEffect, useState } from "react"
import { Dialog } from "./Dialog.tsx"

const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ["Cmd/Ctrl+Enter", "Run the selection or the statement under the cursor (Console)"],
  ["Cmd/Ctrl+Shift+Enter", "Run every statement of the console, each into its own result tab"],
  ["Shift+Alt+F", "Format the console's selection, or all its text (a search request's JSON body); Cmd/Ctrl+Z reverts it"],
  ["Cmd/Ctrl+/", "Comment or uncomment the console's current line or selected lines (-- )"],
  ["Up/Down on the editor's split bar", "Make the console editor shorter or taller"],
  ["Cmd/Ctrl+S", "Save the pending changes of the grid shown (shows the statements first)"],
  ["Esc", "Cancel the cell being edited; close a dialog"],
  ["Enter or F2", "Edit the focused cell (or view it when it cannot be edited)"],
  ["Double-click", "Edit a cell, or view a read-only one"],
  ["Cmd/Ctrl+Shift+N", "Set the selected cells to NULL"],
  ["Arrows, Tab, Home/End, PageUp/PageDown", "Move in the grid; with Shift, extend the selection"],
  ["Cmd/Ctrl+C", "Copy the selection as TSV (CSV, JSON and SQL INSERT under the grid)"],
  ["Cmd/Ctrl+A", "Select every cell of the grid"],
  ["Shift+Enter", "View the focused cell whole"],
  ["Space", "Open the row detail of the selected row (every column, editable)"],
  ["Cmd/Ctrl+Enter in the row detail", "Stage the row detail's changes (Save shows the statements)"],
  ["Cmd/Ctrl+Enter in the Save query dialog or a curated tool's Edit form", "Save the query (and the AI tool, with Expose to AI clients), or the tool's changes"],
  ["Typing on a cell", "Start editing it with the character typed"],
  ["Delete", "Mark the selected rows for deletion (again: unmark)"],
  ["Cmd/Ctrl+D", "Duplicate the selected rows as new rows"],
  ["Cmd/Ctrl+V", "Paste a TSV range (from a spreadsheet) into the cells from the focused one, lines past the last row as new rows; every value is checked first"],
  ["Shift+F10 or the context-menu key", "Open the cell menu (copy as, set NULL, duplicate, delete, filter by this value, hide column)"],
  ["Cmd/Ctrl+T (or Alt+T)", "Open a new console tab on the connection shown"],
  ["Cmd/Ctrl+W (or Alt+W)", "Close the tab shown (asks first when it has unsaved changes)"],
  ["Cmd/Ctrl+1…8 (or Alt+1…8)", "Show the first… eighth tab; 9 shows the last one"],
  ["Cmd/Ctrl+PageUp/PageDown", "Show the previous or next tab; with Shift, move the tab left or right"],
  ["Middle-click a tab", "Close it; drag a tab to reorder the tabs"],
  ["Enter in Page", "Jump to the page typed"],
  ["Cmd/Ctrl+F", "Focus the filter bar's search box (the raw filter on a search collection); Enter applies. On Connections: the search box (Esc clears it)"],
  ["Cmd/Ctrl+P", "Open anything: a table, view, function, saved query or history entry of the open connections"],
  ["Cmd/Ctrl+Shift+F", "Search the sidebar (tables, views, functions); Esc clears the search"],
  ["Up/Down, Right/Left, Home/End in the sidebar", "Move in the tree; expand or collapse a schema; Enter opens (Down from its search box enters the tree)"],
  ["Left/Right on the sidebar's edge", "Make the sidebar narrower or wider (Shift: larger steps)"],
  ["Cmd/Ctrl+Enter on a foreign-key cell", "Open the referenced row in its table's tab, filtered by the key"],
  ["?", "Show this list"]
]

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))

/** The keyboard shortcuts overlay (D-85): "?" anywhere outside a text field, or the header's button. */
export const useShortcutsOverlay = () => {
  const [open, setOpen] = useState(false)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "?" && !event.defaultPrevented && !typing(event.target)) setOpen(true)
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [])
  const overlay = open
    ? (
      <Dialog title="Keyboard shortcuts" onClose={() => setOpen(false)}>
        <table className="list" aria-label="Shortcuts">
          <tbody>{SHORTCUTS.map(([keys, what]) => <tr key={keys}><th><kbd>{keys}</kbd></th><td>{what}</td></tr>)}</tbody>
        </table>
        <div className="row" style={{ justifyContent: "flex-end" }}><button className="primary" onClick={() => setOpen(false)}>Close</button></div>
      </Dialog>
    )
    : null
  return { overlay, show: () => setOpen(true) }
}
