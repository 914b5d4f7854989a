import { useEffect, useRef, useState } from "react"
import type { UiCatalogObject } from "../../../../domain/UiCatalog.ts"
import type { UiConnection } from "../../../../domain/UiSchemas.ts"
import { call } from "../../../api.ts"
import { KIND_ICON, KIND_LABEL } from "./CatalogTree.tsx"
import { definitionQuery, loadAllObjects, requestOpenConsole, requestOpenTable } from "./catalogStore.ts"
import { fuzzyFilter } from "./fuzzy.ts"

interface Item {
  readonly key: string
  readonly connection: UiConnection
  readonly icon: string
  readonly text: string
  readonly what: string
  readonly open: () => void
}

const SHOWN = 50
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** Everything the palette offers on the open connections: objects, saved queries, then the latest history. */
const loadItems = async (connections: ReadonlyArray<UiConnection>, shown: string | undefined): Promise<Array<Item>> => {
  const saved = await call((client) => client.work.savedQueries()).catch(() => [])
  const per = await Promise.all(connections.map(async (connection): Promise<Array<Item>> => {
    const [objects, history] = await Promise.all([
      loadAllObjects(connection.id).catch((): ReadonlyArray<UiCatalogObject> => []),
      call((client) => client.browse.history({ path: { id: connection.id }, urlParams: { limit: 50 } })).catch(() => [])
    ])
    const console = (text: string) => () => requestOpenConsole(connection.id, text)
    return [
      ...objects.map((object): Item => ({
        key: `o:${connection.id}:${object.kind}:${object.name}:${object.signature ?? ""}`,
        connection,
        icon: KIND_ICON[object.kind],
        text: object.name,
        what: KIND_LABEL[object.kind],
        open: object.kind === "function" || object.kind === "procedure"
          ? console(definitionQuery(connection.type, object))
          : () => requestOpenTable({ connectionId: connection.id, table: object.name })
      })),
      ...saved.filter((query) => query.connectionId === connection.id || (query.connectionId === null && connection.id === shown)).map((query): Item => ({
        key: `s:${connection.id}:${query.id}`,
        connection,
        icon: "★",
        text: query.name,
        what: "saved query",
        open: console(query.text)
      })),
      ...[...new Map(history.map((entry) => [oneLine(entry.text), entry])).values()].map((entry): Item => ({
        key: `h:${connection.id}:${entry.id}`,
        connection,
        icon: "↺",
        text: oneLine(entry.text),
        what: "history",
        open: console(entry.text)
      }))
    ]
  }))
  return per.flat()
}

/**
 * "Open anything" (D-98): Ctrl/Cmd+P anywhere opens a fuzzy search over the tables, views, functions, saved queries
 * and history of every open connection; Up/Down choose, Enter opens (a table in its tab, the rest in a new console).
 */
export const OpenAnything = ({ connections, shown }: { readonly connections: ReadonlyArray<UiConnection>; readonly shown: string | undefined }) => {
  const [open, setOpen] = useState(false)
  const [items, setItems] = useState<ReadonlyArray<Item>>()
  const [query, setQuery] = useState("")
  const [index, setIndex] = useState(0)
  const inputRef = useRef<HTMLInputElement>(null)
  const previous = useRef<HTMLElement | null>(null)

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "p") {
        event.preventDefault()
        if (document.querySelector(".modal-back") !== null) return
        previous.current = document.activeElement as HTMLElement | null
        setQuery("")
        setIndex(0)
        setItems(undefined)
        setOpen(true)
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [])

  useEffect(() => {
    if (!open) return
    let live = true
    inputRef.current?.focus()
    void loadItems(connections, shown).then((loaded) => live && setItems(loaded))
    return () => { live = false }
  }, [open, connections, shown])

  if (!open) return null
  const matches = fuzzyFilter(items ?? [], query, (item) => `${item.text} ${item.connection.name}`).slice(0, SHOWN)
  const chosen = Math.min(index, Math.max(0, matches.length - 1))
  const close = (restore: boolean) => {
    setOpen(false)
    if (restore) previous.current?.focus?.()
  }
  const choose = (item: Item | undefined) => {
    if (item === undefined) return
    close(false)
    item.open()
  }

  return (
    <div className="modal-back palette-back" onMouseDown={(event) => { if (event.target === event.currentTarget) close(true) }}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Open anything">
        <input
          ref={inputRef}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={matches[chosen] === undefined ? undefined : `palette-${chosen}`}
          aria-label="Open anything"
          placeholder={connections.length === 0 ? "Open a connection first" : "Tables, views, saved queries, history…"}
          value={query}
          onChange={(event) => { setQuery(event.target.value); setIndex(0) }}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") setIndex(Math.min(matches.length - 1, chosen + 1))
            else if (event.key === "ArrowUp") setIndex(Math.max(0, chosen - 1))
            else if (event.key === "Enter") choose(matches[chosen])
            else if (event.key === "Escape") close(true)
            else return
            event.preventDefault()
            event.stopPropagation()
          }}
        />
        {items === undefined && <p className="muted">Loading…</p>}
        {items !== undefined && matches.length === 0 && <p className="muted">{connections.length === 0 ? "No connection is open." : "Nothing matches."}</p>}
        <ul id="palette-list" role="listbox" aria-label="Matches">
          {matches.map((item, i) => (
            <li key={item.key} id={`palette-${i}`} role="option" aria-selected={i === chosen} onMouseEnter={() => setIndex(i)} onClick={() => choose(item)}>
              <span aria-hidden>{item.icon}</span>
              <span className="palette-text">{item.text}</span>
              <span className="muted">{item.what} · {item.connection.name}</span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
