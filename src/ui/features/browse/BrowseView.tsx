import { useCallback, useEffect, useRef, useState } from "react"
import type { UiCatalogObject } from "../../../domain/UiCatalog.ts"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { type TabRef, tabId, tabOfId } from "../../workspace/route.ts"
import { useSessionState } from "../../workspace/sessionState.ts"
import { type OpenConnection, tabLabel } from "../../workspace/state.ts"
import { ConsoleTab } from "../console/ConsoleTab.tsx"
import { DashboardView } from "../search/DashboardView.tsx"
import { UsersRolesView } from "../search/UsersRolesView.tsx"
import { onSchemaChanged } from "../console/consoleStore.ts"
import { ConnectionMark } from "../connections/ConnectionMark.tsx"
import { DataTab } from "./DataTab.tsx"
import { StructureTab } from "./StructureTab.tsx"
import { chosenDatabase, databaseParams, definitionQuery, onOpenConsole, onOpenTable } from "./sidebar/catalogStore.ts"
import { CatalogTree } from "./sidebar/CatalogTree.tsx"
import { ResizableSidebar } from "./sidebar/SidebarResize.tsx"

export interface TabActions {
  readonly open: (tab: TabRef) => void
  readonly close: (id: string) => void
  /** `on`: the console's database (D-98); absent: the one the sidebar's switcher chose. */
  readonly newConsole: (initialText?: string, on?: { readonly database?: string }) => void
  readonly move: (id: string, to: number) => void
}

const isMod = (event: KeyboardEvent) => event.ctrlKey || event.metaKey || event.altKey

/** Tab keys (D-60): Ctrl/Cmd+T new console, +W close, +1…9 switch, +PageUp/PageDown previous/next, with Shift move. */
const useTabKeys = (active: boolean, state: OpenConnection, actions: TabActions, select: (id: string) => void) => {
  useEffect(() => {
    if (!active) return
    const onKey = (event: KeyboardEvent) => {
      // a key the focused view already used (the grid's Ctrl+PageUp, a dialog's keys) is not also a tab key
      if (!isMod(event) || event.defaultPrevented || document.querySelector(".modal-back") !== null) return
      const key = event.key.toLowerCase()
      const index = state.active === undefined ? -1 : state.tabs.indexOf(state.active)
      if (key === "t" && !event.shiftKey) {
        event.preventDefault()
        actions.newConsole()
      } else if (key === "w" && !event.shiftKey && state.active !== undefined) {
        event.preventDefault()
        actions.close(state.active)
      } else if (/^[1-9]$/.test(event.key) && !event.shiftKey) {
        const id = event.key === "9" ? state.tabs[state.tabs.length - 1] : state.tabs[Number(event.key) - 1]
        if (id !== undefined) {
          event.preventDefault()
          select(id)
        }
      } else if ((key === "pageup" || key === "pagedown") && state.active !== undefined && index >= 0) {
        event.preventDefault()
        const to = key === "pageup" ? index - 1 : index + 1
        if (event.shiftKey) actions.move(state.active, Math.max(0, to))
        else {
          const id = state.tabs[(to + state.tabs.length) % state.tabs.length]
          if (id !== undefined) select(id)
        }
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [active, state, actions, select])
}

/**
 * One open connection's workspace (D-60): the sidebar tree (D-98) and the
 * connection's own tabs (a tab per table with its Data and Structure views, consoles, and the search admin views).
 * Every open tab stays mounted while hidden, so switching tabs or connections keeps its rows, filters, pending edits
 * and console without asking the server again.
 */
export const BrowseView = ({ connection, state, visible, actions, select, setView }: {
  readonly connection: UiConnection
  readonly state: OpenConnection
  readonly visible: boolean
  readonly actions: TabActions
  readonly select: (id: string) => void
  readonly setView: (id: string, view: "data" | "structure") => void
}) => {
  const [reloadTick, setReloadTick] = useState(0)
  const reload = useCallback(() => setReloadTick((n) => n + 1), [])
  const [objects, setObjects] = useState<ReadonlyArray<UiCatalogObject>>([])
  // the request "Open in console" handed to a console tab, kept for the session so a reload opens it with it again
  const [consoleTexts, setConsoleTexts] = useSessionState<Readonly<Record<string, string>>>(`consoles:${connection.id}`, {})
  const [dragged, setDragged] = useState<string>()
  // a CREATE, ALTER, DROP or RENAME run in the console reloads the table list
  useEffect(() => onSchemaChanged(connection.id, reload), [connection.id, reload])
  const isSearch = connection.type === "search"
  useTabKeys(visible, state, actions, select)
  const activeTable = state.active !== undefined && tabOfId(state.active).kind === "table" ? tabOfId(state.active).name : undefined

  const openConsole = (text: string, on: { readonly database?: string } = chosenDatabase(connection.id)) => {
    const id = tabId({ kind: "console", name: String(state.consoles + 1), ...on })
    setConsoleTexts((texts) => ({ ...texts, [id]: text }))
    actions.newConsole(text, on)
  }

  const openObject = (object: UiCatalogObject) =>
    object.kind === "function" || object.kind === "procedure"
      ? openConsole(definitionQuery(connection.type, object))
      : actions.open({ kind: "table", name: object.name, ...chosenDatabase(connection.id) })
  // "open anything" and a foreign-key link ask through window events (D-98, D-99)
  const opener = useRef({ openConsole, open: actions.open })
  opener.current = { openConsole, open: actions.open }
  useEffect(() => onOpenConsole(connection.id, (text) => opener.current.openConsole(text)), [connection.id])
  useEffect(() => onOpenTable(connection.id, (detail) => opener.current.open({ kind: "table", name: detail.table, ...chosenDatabase(connection.id) })), [connection.id])

  return (
    <div className="browse" hidden={!visible}>
      <ResizableSidebar label={isSearch ? "Collections" : "Tables"}>
        <div className="row" style={{ justifyContent: "space-between", padding: "2px 6px" }}>
          <strong>{isSearch ? "Collections" : "Tables"}</strong>
          <button onClick={reload} title="Reload the list and the row counts">↻</button>
        </div>
        <CatalogTree connectionId={connection.id} defaultDatabase={connection.database} activeTable={activeTable} reloadTick={reloadTick} onOpen={openObject} onLoaded={setObjects} />
      </ResizableSidebar>
      <section className="workspace-pane">
        <div className="tabs doc-tabs" role="tablist" aria-label="Open tabs">
          {state.tabs.map((id, index) => (
            <span
              key={id}
              className={`doc-tab${dragged === id ? " dragging" : ""}`}
              draggable
              onDragStart={(event) => { setDragged(id); event.dataTransfer.setData("text/x-dbdesk-tab", id) }}
              onDragEnd={() => setDragged(undefined)}
              onDragOver={(event) => { if (dragged !== undefined) event.preventDefault() }}
              onDrop={(event) => { event.preventDefault(); if (dragged !== undefined) actions.move(dragged, index); setDragged(undefined) }}
            >
              <button role="tab" aria-selected={state.active === id} title={index < 9 ? `Ctrl/Cmd+${index + 1}` : undefined} onClick={() => select(id)} onAuxClick={(event) => { if (event.button === 1) actions.close(id) }}>
                <ConnectionMark connection={connection} />{tabLabel(id)}
              </button>
              <button className="tab-close" title={`Close ${tabLabel(id)} (Ctrl/Cmd+W)`} onClick={() => actions.close(id)}>×</button>
            </span>
          ))}
          <button className="tab-new" aria-label="New console" title="New console (Ctrl/Cmd+T)" onClick={() => actions.newConsole()}>+</button>
        </div>
        {state.active === undefined && <p className="muted">Choose a {isSearch ? "collection" : "table"} in the sidebar, or open a console with +.</p>}
        {state.tabs.map((id) => {
          const tab = tabOfId(id)
          const shown = visible && state.active === id
          return (
            <div key={id} className="tab-pane" hidden={!shown} role="tabpanel" aria-label={tabLabel(id)}>
              {tab.kind === "table" && tab.name !== undefined && (
                <TableTab
                  connection={connection}
                  table={tab.name}
                  database={tab.database}
                  active={shown}
                  view={state.views?.[id] ?? "data"}
                  setView={(view) => setView(id, view)}
                  rowCount={objects.find((t) => t.name === tab.name)?.rowCount ?? null}
                  onOpenInConsole={(text) => openConsole(text, databaseParams(tab.database))}
                />
              )}
              {tab.kind === "console" && (
                <ConsoleTab connection={connection} table={activeTable} tabId={id} database={tab.database} {...(consoleTexts[id] === undefined ? {} : { initialText: consoleTexts[id] })} />
              )}
              {tab.kind === "users" && <UsersRolesView connection={connection} />}
              {tab.kind === "dashboard" && <DashboardView connection={connection} />}
            </div>
          )
        })}
      </section>
    </div>
  )
}

/** A table's tab: its Data view and its Structure view, the Structure loaded when first shown. */
const TableTab = ({ connection, table, database, active, view, setView, rowCount, onOpenInConsole }: {
  readonly connection: UiConnection
  readonly table: string
  readonly database: string | undefined
  readonly active: boolean
  readonly view: "data" | "structure"
  readonly setView: (view: "data" | "structure") => void
  readonly rowCount: number | null
  readonly onOpenInConsole: (text: string) => void
}) => {
  const [structureSeen, setStructureSeen] = useState(view === "structure")
  useEffect(() => { if (view === "structure") setStructureSeen(true) }, [view])
  return (
    <>
      <div className="tabs view-tabs" role="tablist" aria-label="View">
        <button role="tab" aria-selected={view === "data"} onClick={() => setView("data")}>Data</button>
        <button role="tab" aria-selected={view === "structure"} onClick={() => setView("structure")}>Structure</button>
      </div>
      <div className="tab-body" hidden={view !== "data"}>
        <DataTab connection={connection} table={table} database={database} active={active && view === "data"} rowCount={rowCount} onOpenInConsole={onOpenInConsole} />
      </div>
      {structureSeen && <div hidden={view !== "structure"}><StructureTab connection={connection} table={table} database={database} /></div>}
    </>
  )
}
