import { useEffect, useState } from "react"
import type { UiConnection } from "../../../domain/UiSchemas.ts"
import { useLoad } from "../../api.ts"
import { DashboardView } from "../search/DashboardView.tsx"
import { UsersRolesView } from "../search/UsersRolesView.tsx"
import { Skeleton } from "../../shell/Skeleton.tsx"
import { ConsoleTab } from "../console/ConsoleTab.tsx"
import { onSchemaChanged } from "../console/consoleStore.ts"
import { DataTab } from "./DataTab.tsx"
import { StructureTab } from "./StructureTab.tsx"

type Tab = "data" | "structure" | "console" | "users" | "dashboard"

/** Browse (product-decisions §9 point 2): the sidebar with row counts and the tabs of the chosen table or collection. */
export const BrowseView = ({ connection }: { readonly connection: UiConnection }) => {
  const tables = useLoad((client) => client.browse.tables({ path: { id: connection.id } }), [connection.id])
  const [table, setTable] = useState<string>()
  // a CREATE, ALTER, DROP or RENAME run in the console reloads the table list
  useEffect(() => onSchemaChanged(connection.id, tables.reload), [connection.id, tables.reload])
  const [tab, setTab] = useState<Tab>("data")
  /** Issue 28 item 2: the request "Open in console" hands over; a new one remounts the console with it. */
  const [opened, setOpened] = useState<{ readonly text: string; readonly count: number }>()
  const isSearch = connection.type === "search"
  const tabs: ReadonlyArray<readonly [Tab, string, boolean]> = [
    ["data", "Data", table !== undefined],
    ["structure", "Structure", table !== undefined],
    ["console", "Console", true],
    ...(isSearch ? [["users", "Users & Roles", true] as const, ["dashboard", "Server Dashboard", true] as const] : [])
  ]
  return (
    <div className="browse">
      <aside className="sidebar" aria-label={isSearch ? "Collections" : "Tables"}>
        <div className="row" style={{ justifyContent: "space-between", padding: "2px 6px" }}>
          <strong>{isSearch ? "Collections" : "Tables"}</strong>
          <button onClick={tables.reload} title="Reload the list and the row counts">↻</button>
        </div>
        {tables.loading && tables.data === undefined && <Skeleton rows={6} />}
        {tables.error !== undefined && <div className="error">{tables.error}</div>}
        {tables.data?.note != null && <p className="note">{tables.data.note}</p>}
        {(tables.data?.tables ?? []).map((t) => (
          <button key={t.name} aria-current={t.name === table} onClick={() => { setTable(t.name); if (tab !== "data" && tab !== "structure") setTab("data") }}>
            <span>{t.name}</span><span className="muted">{t.rowCount?.toLocaleString() ?? ""}</span>
          </button>
        ))}
      </aside>
      <section>
        <div className="tabs" role="tablist">
          {tabs.map(([id, label, enabled]) => (
            <button key={id} role="tab" aria-selected={tab === id} disabled={!enabled} onClick={() => setTab(id)}>{label}</button>
          ))}
        </div>
        {table === undefined && (tab === "data" || tab === "structure") && <p className="muted">Choose a {isSearch ? "collection" : "table"} in the sidebar.</p>}
        {table !== undefined && tab === "data" && (
          <DataTab key={table} connection={connection} table={table} onOpenInConsole={(text) => {
            setOpened({ text, count: (opened?.count ?? 0) + 1 })
            setTab("console")
          }} />
        )}
        {table !== undefined && tab === "structure" && <StructureTab connection={connection} table={table} />}
        {tab === "console" && <ConsoleTab key={opened?.count ?? 0} connection={connection} table={table} {...(opened === undefined ? {} : { initialText: opened.text })} />}
        {tab === "users" && <UsersRolesView connection={connection} />}
        {tab === "dashboard" && <DashboardView connection={connection} />}
      </section>
    </div>
  )
}
