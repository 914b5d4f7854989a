import { useEffect, useMemo, useRef, useState } from "react"
import type { UiCatalog, UiCatalogObject, UiCatalogObjects, UiObjectKind } from "../../../../domain/UiCatalog.ts"
import { Skeleton } from "../../../shell/Skeleton.tsx"
import { useSessionState, writeSession } from "../../../workspace/sessionState.ts"
import { forgetCatalog, loadObjects, loadOverview } from "./catalogStore.ts"
import { fuzzyScore } from "./fuzzy.ts"

export const KIND_ICON: Record<UiObjectKind, string> = { table: "▦", view: "◫", materializedView: "◩", function: "ƒ", procedure: "⚙", collection: "❏" }
export const KIND_LABEL: Record<UiObjectKind, string> = {
  table: "table",
  view: "view",
  materializedView: "materialized view",
  function: "function",
  procedure: "procedure",
  collection: "collection"
}

type Loaded = UiCatalogObjects | { readonly error: string }
type Row =
  | { readonly type: "schema"; readonly key: string; readonly schema: string; readonly expanded: boolean }
  | { readonly type: "object"; readonly key: string; readonly object: UiCatalogObject; readonly nested: boolean }

/**
 * The sidebar tree of one connection (D-98): the database, its schemas (loaded first), each schema's tables, views,
 * materialized views and functions (loaded when the schema is first expanded), with a kind icon and the row count in
 * its own column. The search box narrows it (every schema is loaded then); Up/Down move, Right/Left expand and
 * collapse, Enter opens; Ctrl/Cmd+Shift+F focuses the search box. The database switcher reads another database of the
 * server; the tabs opened after it read that database too (`defaultDatabase`: the connection's own).
 */
export const CatalogTree = ({ connectionId, defaultDatabase, activeTable, reloadTick, onOpen, onLoaded }: {
  readonly connectionId: string
  readonly defaultDatabase: string | undefined
  readonly activeTable: string | undefined
  readonly reloadTick: number
  readonly onOpen: (object: UiCatalogObject) => void
  readonly onLoaded?: (objects: ReadonlyArray<UiCatalogObject>) => void
}) => {
  // the schema switcher: one schema shown (and expanded), or all of them
  const [schemaChoice, setSchemaChoice] = useSessionState<string>(`schema:${connectionId}`, "")
  // the database switcher: "" is the connection's own database
  const [databaseChoice, setDatabaseChoice] = useSessionState<string>(`database:${connectionId}`, "")
  const [overview, setOverview] = useState<UiCatalog | { readonly error: string }>()
  const [lists, setLists] = useState<Readonly<Record<string, Loaded>>>({})
  const [expanded, setExpanded] = useSessionState<ReadonlyArray<string>>(`tree:${connectionId}`, [])
  const [query, setQuery] = useState("")
  const [focus, setFocus] = useState(0)
  const treeRef = useRef<HTMLUListElement>(null)
  const searchRef = useRef<HTMLInputElement>(null)

  // which database (and reload) the lists are for: an answer asked for before a switch is dropped, not shown (D-98)
  const generation = useRef(0)
  useEffect(() => {
    let live = true
    generation.current += 1
    if (reloadTick > 0) forgetCatalog(connectionId)
    setLists({})
    loadOverview(connectionId).then(
      (loaded) => {
        if (!live) return
        setOverview(loaded)
        if (loaded.defaultSchema !== null) setExpanded((current) => (current.length === 0 ? [loaded.defaultSchema ?? ""] : current))
      },
      (error: Error) => live && setOverview({ error: error.message })
    )
    return () => { live = false }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connectionId, reloadTick, databaseChoice])

  const chooseDatabase = (database: string) => {
    const choice = database === defaultDatabase ? "" : database
    // the database already shown: nothing to read again (clearing the overview here would leave the tree loading,
    // as the read below only runs when the choice changes)
    if (choice === databaseChoice) return
    // read now by the catalog store, before the effect that keeps it for the session runs
    writeSession(`database:${connectionId}`, choice)
    setDatabaseChoice(choice)
    setSchemaChoice("")
    setExpanded([])
    setOverview(undefined)
    setFocus(0)
  }

  const schemaFilter = schemaChoice === "" ? undefined : schemaChoice
  const flat = overview !== undefined && !("error" in overview) && overview.schemas.length === 0
  const schemas = overview === undefined || "error" in overview ? [] : overview.schemas.filter((s) => schemaFilter === undefined || s === schemaFilter)
  const searching = query.trim() !== ""
  const wanted = flat ? [""] : schemas.filter((schema) => searching || expanded.includes(schema) || schema === schemaFilter)

  useEffect(() => {
    const asked = generation.current
    for (const schema of wanted) {
      if (lists[schema] !== undefined) continue
      loadObjects(connectionId, schema === "" ? null : schema).then(
        (loaded) => asked === generation.current && setLists((current) => ({ ...current, [schema]: loaded })),
        (error: Error) => asked === generation.current && setLists((current) => ({ ...current, [schema]: { error: error.message } }))
      )
    }
  }, [connectionId, wanted.map((schema) => `[${schema}]`).join(""), lists]) // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    onLoaded?.(Object.values(lists).flatMap((list) => ("error" in list ? [] : list.objects)))
  }, [lists, onLoaded])

  // Ctrl/Cmd+Shift+F: the search box of the sidebar shown
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && !event.altKey && event.key.toLowerCase() === "f" && searchRef.current?.offsetParent != null) {
        event.preventDefault()
        searchRef.current.focus()
        searchRef.current.select()
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [])

  const matches = (object: UiCatalogObject) => !searching || fuzzyScore(query, object.label) !== undefined
  const rows = useMemo((): ReadonlyArray<Row> => {
    const objectRows = (schema: string, nested: boolean): Array<Row> => {
      const list = lists[schema]
      return list === undefined || "error" in list
        ? []
        : list.objects.filter(matches).map((object) => ({ type: "object", key: `o:${object.kind}:${object.name}:${object.signature ?? ""}`, object, nested }))
    }
    if (flat) return objectRows("", false)
    return schemas.flatMap((schema): Array<Row> => {
      const open = searching || expanded.includes(schema) || schema === schemaFilter
      const children = open ? objectRows(schema, true) : []
      if (searching && children.length === 0) return []
      return [{ type: "schema", key: `s:${schema}`, schema, expanded: open }, ...children]
    })
  }, [lists, flat, schemas.join("\u0000"), expanded, query, schemaFilter]) // eslint-disable-line react-hooks/exhaustive-deps

  const current = Math.min(focus, Math.max(0, rows.length - 1))
  const toggle = (schema: string, open: boolean) =>
    setExpanded((list) => (open ? (list.includes(schema) ? list : [...list, schema]) : list.filter((s) => s !== schema)))
  const focusRow = (index: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, index))
    setFocus(next)
    treeRef.current?.querySelectorAll<HTMLElement>("[data-row]")[next]?.focus()
  }
  const activate = (row: Row) => (row.type === "schema" ? toggle(row.schema, !row.expanded) : onOpen(row.object))

  const onKey = (event: React.KeyboardEvent) => {
    const row = rows[current]
    if (row === undefined) return
    const parent = () => rows.findLastIndex((r, i) => i < current && r.type === "schema")
    switch (event.key) {
      case "ArrowDown": focusRow(current + 1); break
      case "ArrowUp": if (current === 0) searchRef.current?.focus(); else focusRow(current - 1); break
      case "Home": focusRow(0); break
      case "End": focusRow(rows.length - 1); break
      case "ArrowRight":
        if (row.type === "schema" && !row.expanded) toggle(row.schema, true)
        else if (row.type === "schema") focusRow(current + 1)
        break
      case "ArrowLeft":
        if (row.type === "schema" && row.expanded && !searching) toggle(row.schema, false)
        else if (row.type === "object" && row.nested) focusRow(parent())
        break
      case "Enter": activate(row); break
      default: return
    }
    event.preventDefault()
  }

  return (
    <>
      <input
        ref={searchRef}
        className="tree-search"
        type="search"
        placeholder="Search tables, views, functions…"
        aria-label="Search the sidebar"
        value={query}
        onChange={(event) => { setQuery(event.target.value); setFocus(0) }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || (event.key === "Enter" && rows.length > 0)) {
            event.preventDefault()
            if (event.key === "Enter" && searching) {
              const first = rows.find((r) => r.type === "object")
              if (first !== undefined) activate(first)
            } else focusRow(0)
          } else if (event.key === "Escape" && query !== "") {
            event.preventDefault()
            setQuery("")
          }
        }}
      />
      {overview === undefined && <Skeleton rows={6} />}
      {overview !== undefined && "error" in overview && <div className="error">{overview.error}</div>}
      {overview !== undefined && !("error" in overview) && overview.database !== null && overview.databases.length <= 1 && (
        <div className="tree-database muted" title="The database this connection reaches">⛁ {overview.database}</div>
      )}
      {overview !== undefined && !("error" in overview) && overview.databases.length > 1 && (
        <select className="tree-database" aria-label="Database" title="The database the tree and the tabs opened now read" value={overview.database ?? ""} onChange={(event) => chooseDatabase(event.target.value)}>
          {overview.database === null && <option value="">Choose a database</option>}
          {overview.databases.map((database) => <option key={database} value={database}>⛁ {database}</option>)}
        </select>
      )}
      {overview !== undefined && !("error" in overview) && overview.schemas.length > 1 && (
        <select className="tree-schema" aria-label="Schema" value={schemaChoice} onChange={(event) => { setSchemaChoice(event.target.value); setFocus(0) }}>
          <option value="">All schemas</option>
          {overview.schemas.map((schema) => <option key={schema} value={schema}>{schema}</option>)}
        </select>
      )}
      {Object.entries(lists).map(([schema, list]) => ("error" in list
        ? <div key={schema} className="error">{schema === "" ? "" : `${schema}: `}{list.error}</div>
        : list.note !== null && (flat || expanded.includes(schema)) && !searching ? <p key={schema} className="note">{list.note}</p> : null))}
      {searching && rows.length === 0 && Object.keys(lists).length >= wanted.length && <p className="muted">Nothing matches “{query}”.</p>}
      <ul ref={treeRef} className="tree" role="tree" aria-label="Database objects" onKeyDown={onKey}>
        {rows.map((row, index) => (
          <li
            key={row.key}
            role="treeitem"
            aria-level={row.type === "schema" || !row.nested ? 1 : 2}
            aria-expanded={row.type === "schema" ? row.expanded : undefined}
            aria-selected={row.type === "object" && row.object.name === activeTable}
            className={`tree-row ${row.type}${row.type === "object" && row.nested ? " nested" : ""}`}
          >
            <button
              data-row
              tabIndex={index === current ? 0 : -1}
              className="tree-item"
              aria-current={row.type === "object" && row.object.name === activeTable}
              title={row.type === "schema" ? `Schema ${row.schema}` : `${row.object.name}${row.object.signature === null ? "" : `(${row.object.signature})`} (${KIND_LABEL[row.object.kind]})`}
              data-kind={row.type === "object" ? row.object.kind : "schema"}
              onFocus={() => setFocus(index)}
              onClick={() => activate(row)}
            >
              {row.type === "schema"
                ? <><span className="tree-name">{row.schema}</span><span className="tree-icon" aria-hidden>{row.expanded ? "▾" : "▸"}</span></>
                : (
                  <>
                    <span className="tree-name">{row.object.label}{row.object.signature === null ? "" : <span className="muted">({row.object.signature})</span>}</span>
                    <span className={`tree-icon kind-${row.object.kind}`} aria-hidden>{KIND_ICON[row.object.kind]}</span>
                    <span className="tree-count muted">{row.object.rowCount?.toLocaleString() ?? ""}</span>
                  </>
                )}
            </button>
          </li>
        ))}
      </ul>
    </>
  )
}
