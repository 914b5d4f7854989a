import { describe, expect, it } from "vitest"
import { formatRoute, parseRoute, tabId, tabOfId } from "../../src/ui/workspace/route.ts"
import { applyRoute, routeOfTab, tabLabel } from "../../src/ui/workspace/state.ts"

/** A tab on another database of the server keeps it in its id, its title and its address (D-98). */
describe("a tab's own database", () => {
  const odd = "sales:eu@2026/q4 é"

  it("D-98 the tab id keeps the database, whatever characters it has, and a tab without one is unchanged", () => {
    expect(tabId({ kind: "table", name: "accounts" })).toBe("table:accounts")
    expect(tabOfId("table:analytics.page_views")).toEqual({ kind: "table", name: "analytics.page_views" })
    for (
      const tab of [{ kind: "table" as const, name: "a:b", database: odd }, {
        kind: "console" as const,
        name: "3",
        database: "second"
      }]
    ) {
      expect(tabOfId(tabId(tab))).toEqual(tab)
    }
    expect(tabOfId("console:1")).toEqual({ kind: "console", name: "1" })
  })

  it("D-98 the address names the database, so a reload opens the same tab on it; the title names it too", () => {
    const route = {
      view: "connection" as const,
      connectionId: "c1",
      tab: { kind: "table" as const, name: "ledger", database: odd }
    }
    const hash = formatRoute(route)
    expect(hash).toBe(`#/c/c1/db/${encodeURIComponent(odd)}/table/ledger`)
    expect(parseRoute(hash)).toEqual(route)
    expect(parseRoute("#/c/c1/table/ledger")).toEqual({
      view: "connection",
      connectionId: "c1",
      tab: { kind: "table", name: "ledger" }
    })
    const open = applyRoute([], route, () => false)
    const id = open[0]?.active ?? ""
    expect(tabLabel(id)).toBe(`ledger (${odd})`)
    expect(tabLabel("table:ledger")).toBe("ledger")
    expect(tabLabel(tabId({ kind: "console", name: "2", database: "second" }))).toBe("Console 2 (second)")
    // the Structure view of that tab stays on its database
    const structure = routeOfTab("c1", id, { ...open[0]!, views: { [id]: "structure" } })
    expect(structure).toEqual({
      view: "connection",
      connectionId: "c1",
      tab: { kind: "structure", name: "ledger", database: odd }
    })
    expect(applyRoute(open, structure, () => false)[0]?.tabs).toEqual(open[0]?.tabs)
  })
})
