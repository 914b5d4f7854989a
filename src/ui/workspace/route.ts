/**
 * The address names what is open, so Back/Forward, reload and a shared link land on the same view: a hash route
 * (the page itself stays `/`, which keeps the `?key=` exchange and its redirect to `/` untouched, and the fragment
 * survives that redirect).
 *
 *   #/connections · #/mcp · #/c/<connection> · #/c/<connection>/table/<table> · #/c/<connection>/structure/<table>
 *   #/c/<connection>/console/<n> · #/c/<connection>/users · #/c/<connection>/dashboard
 *   #/c/<connection>/db/<database>/table/<table> (and structure, console): a tab on another database (D-98)
 */
export type TabKind = "table" | "structure" | "console" | "users" | "dashboard"

export interface TabRef {
  readonly kind: TabKind
  /** The table for table and structure tabs, the number for console tabs. */
  readonly name?: string
  /** D-98: the tab's own database when it is not the connection's (chosen in the sidebar's switcher). */
  readonly database?: string
}

export type Route =
  | { readonly view: "connections" }
  | { readonly view: "mcp" }
  | { readonly view: "connection"; readonly connectionId: string; readonly tab?: TabRef }

/** `kind:name`, or `kind@database:name` for a tab on another database (the database encoded, so it has no `:`). */
export const tabId = (tab: TabRef): string => {
  const kind = tab.database === undefined ? tab.kind : `${tab.kind}@${encodeURIComponent(tab.database)}`
  return tab.name === undefined ? kind : `${kind}:${tab.name}`
}

export const tabOfId = (id: string): TabRef => {
  const at = id.indexOf(":")
  const head = at < 0 ? id : id.slice(0, at)
  const sign = head.indexOf("@")
  const kind = (sign < 0 ? head : head.slice(0, sign)) as TabKind
  const database = sign < 0 ? undefined : decodeURIComponent(head.slice(sign + 1))
  return { kind, ...(at < 0 ? {} : { name: id.slice(at + 1) }), ...(database === undefined ? {} : { database }) }
}

const kinds = new Set<string>(["table", "structure", "console", "users", "dashboard"])

export const parseRoute = (hash: string): Route => {
  const parts = hash.replace(/^#\/?/, "").split("/").map((part) => {
    try {
      return decodeURIComponent(part)
    } catch {
      return part
    }
  })
  const [head, id, ...tail] = parts
  if (head === "mcp") return { view: "mcp" }
  if (head === "c" && id !== undefined && id !== "") {
    const onDatabase = tail[0] === "db" && tail[1] !== undefined && tail[1] !== ""
    const [kind, ...rest] = onDatabase ? tail.slice(2) : tail
    if (kind === undefined || !kinds.has(kind)) return { view: "connection", connectionId: id }
    // a console link without its number is the first console (its tab is `console:1`, never a bare `console`)
    const name = rest.join("/") || (kind === "console" ? "1" : "")
    const database = onDatabase ? { database: tail[1]! } : {}
    return {
      view: "connection",
      connectionId: id,
      tab: name === "" ? { kind: kind as TabKind, ...database } : { kind: kind as TabKind, name, ...database }
    }
  }
  return { view: "connections" }
}

export const formatRoute = (route: Route): string => {
  if (route.view !== "connection") return `#/${route.view}`
  const base = `#/c/${encodeURIComponent(route.connectionId)}`
  if (route.tab === undefined) return base
  const database = route.tab.database === undefined ? "" : `/db/${encodeURIComponent(route.tab.database)}`
  return `${base}${database}/${route.tab.kind}${
    route.tab.name === undefined ? "" : `/${encodeURIComponent(route.tab.name)}`
  }`
}
