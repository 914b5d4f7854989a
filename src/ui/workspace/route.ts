/**
 * The address names what is open, so Back/Forward, reload and a shared link land on the same view: a hash route
 * (the page itself stays `/`, which keeps the `?key=` exchange and its redirect to `/` untouched, and the fragment
 * survives that redirect).
 *
 *   #/connections · #/mcp · #/c/<connection> · #/c/<connection>/table/<table> · #/c/<connection>/structure/<table>
 *   #/c/<connection>/console/<n> · #/c/<connection>/users · #/c/<connection>/dashboard
 */
export type TabKind = "table" | "structure" | "console" | "users" | "dashboard"

export interface TabRef {
  readonly kind: TabKind
  /** The table for table and structure tabs, the number for console tabs. */
  readonly name?: string
}

export type Route =
  | { readonly view: "connections" }
  | { readonly view: "mcp" }
  | { readonly view: "connection"; readonly connectionId: string; readonly tab?: TabRef }

export const tabId = (tab: TabRef): string => (tab.name === undefined ? tab.kind : `${tab.kind}:${tab.name}`)

export const tabOfId = (id: string): TabRef => {
  const at = id.indexOf(":")
  return at < 0 ? { kind: id as TabKind } : { kind: id.slice(0, at) as TabKind, name: id.slice(at + 1) }
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
  const [head, id, kind, ...rest] = parts
  if (head === "mcp") return { view: "mcp" }
  if (head === "c" && id !== undefined && id !== "") {
    if (kind === undefined || !kinds.has(kind)) return { view: "connection", connectionId: id }
    // a console link without its number is the first console (its tab is `console:1`, never a bare `console`)
    const name = rest.join("/") || (kind === "console" ? "1" : "")
    return { view: "connection", connectionId: id, tab: name === "" ? { kind: kind as TabKind } : { kind: kind as TabKind, name } }
  }
  return { view: "connections" }
}

export const formatRoute = (route: Route): string => {
  if (route.view !== "connection") return `#/${route.view}`
  const base = `#/c/${encodeURIComponent(route.connectionId)}`
  if (route.tab === undefined) return base
  return `${base}/${route.tab.kind}${route.tab.name === undefined ? "" : `/${encodeURIComponent(route.tab.name)}`}`
}
