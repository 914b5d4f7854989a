import { Context, Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

// D-69, D-68 on the sample SQLite database: the dry run shown with every approval, and the database's
// check before anyone is asked.
let server: ApprovalServer
let token: string
beforeAll(async () => {
  server = await startApprovalServer()
  token = await server.tokenFor("readWrite")
})
afterAll(() => server.stop())
beforeEach(() => {
  server.asked.length = 0
  server.script = () => "denied"
})

const elicit = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } }
const call = (query: string, meta: Record<string, unknown> = {}, name = "execute_query", bearer = token) =>
  postMcp(
    server.url,
    modernRequest("tools/call", { name, arguments: { connection_id: server.connectionId, query }, _meta: meta }),
    { authorization: `Bearer ${bearer}` }
  )
const formMessage = async (query: string): Promise<string> => {
  const response = await call(query, elicit)
  expect(response.json.result.resultType).toBe("input_required")
  return response.json.result.inputRequests.approve_statement.params.message
}
const previewRows = async () => {
  const log = Context.get(server.context, ActivityLog)
  await Effect.runPromise(log.flush)
  return (await Effect.runPromise(log.list({ category: "approval", limit: 100 }))).filter((row) =>
    row.action === "approval.preview"
  )
}

describe("D-69: a dry run in every approval, always rolled back", () => {
  it("the form message says 'will change N rows in products' with the rows before → after, and nothing changes", async () => {
    const before = server.rows("SELECT id, stock FROM products WHERE category = 'Office' ORDER BY id")
    expect(before.length).toBeGreaterThan(5)
    const message = await formMessage("UPDATE products SET stock = stock + 1 WHERE category = 'Office'")
    expect(message).toMatch(
      /^Allow UPDATE on 'Sample \(SQLite\)'\?\n\nPreview \(run and rolled back\): will change \d+ rows? in products\./
    )
    expect(message).toContain(`will change ${before.length} row${before.length === 1 ? "" : "s"} in products`)
    const first = before[0] as { id: number; stock: number }
    expect(message).toContain(`• id=${first.id}: stock: ${first.stock} → ${first.stock + 1}`)
    expect(message).toContain(`… and ${before.length - 5} more rows`)
    expect(server.rows("SELECT id, stock FROM products WHERE category = 'Office' ORDER BY id")).toEqual(before)
  })

  it("the app dialog (no elicitation) gets the same preview object; a DELETE shows the rows it would delete", async () => {
    const count = (server.rows("SELECT count(*) AS n FROM order_items WHERE quantity >= 4")[0] as { n: number }).n
    const response = await call("DELETE FROM order_items WHERE quantity >= 4")
    expect(response.json.result.content[0].text).toBe("denied: the user did not approve this operation")
    const preview = server.asked[0]?.preview
    expect(preview).toMatchObject({ _tag: "Changes", action: "delete", target: "order_items", unit: "row", count })
    expect(preview?._tag === "Changes" ? preview.rows.every((row) => row.after === null && row.before !== null) : false)
      .toBe(true)
    expect(preview?._tag === "Changes" ? preview.rows.length : 0).toBe(Math.min(5, count))
    expect((server.rows("SELECT count(*) AS n FROM order_items WHERE quantity >= 4")[0] as { n: number }).n).toBe(count)
  })

  it("INSERT … SELECT previews the new rows; DDL gets no preview and says why; every preview is in the activity log", async () => {
    const insert = await formMessage(
      "INSERT INTO products (sku, name, category, price, stock) SELECT sku || '-copy', name, category, price, 0 FROM products WHERE id <= 2"
    )
    expect(insert).toContain("will insert 2 rows into products")
    expect(insert).toMatch(/• new: id=\d+, sku='[^']+-copy'/)
    expect(server.rows("SELECT count(*) AS n FROM products WHERE sku LIKE '%-copy'")[0]).toEqual({ n: 0 })
    const ddl = await formMessage("CREATE TABLE preview_scratch (id INTEGER)")
    expect(ddl).toContain("No preview: CREATE changes the schema or its settings, which dbdesk does not dry-run.")
    const rows = await previewRows()
    expect(rows.map((row) => [row.outcome, row.details])).toEqual(
      expect.arrayContaining([["success", "action=insert; rows=2"], ["none", "reason=not_previewed"]])
    )
    expect(rows.every((row) => row.connectionId === server.connectionId && /^[0-9a-f]{64}$/.test(row.digest ?? "")))
      .toBe(true)
  })

  it(
    "a dry run past 2 s is stopped: 'preview unavailable: took too long', the question is still asked, nothing changed",
    async () => {
      const slow =
        "UPDATE products SET stock = stock + 1 WHERE id = (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT max(x) % 1 + 1 FROM c)"
      const stock = server.rows("SELECT stock FROM products WHERE id = 1")
      const response = await call(slow)
      expect(response.json.result.content[0].text).toBe("denied: the user did not approve this operation")
      expect(server.asked).toHaveLength(1)
      expect(server.asked[0]?.preview).toEqual({ _tag: "Unavailable", reason: "took too long (over 2 s)" })
      expect(server.rows("SELECT stock FROM products WHERE id = 1")).toEqual(stock)
      expect(
        (await previewRows()).some((row) => row.outcome === "unavailable" && row.details === "reason=took_too_long")
      ).toBe(true)
    },
    30_000
  )
})

describe("D-68: never ask a person to approve what cannot run", () => {
  it.each([
    ["\u0000", /^query_failed: The supplied SQL string contains no statements \(checked by the database/],
    ["x".repeat(300), /^query_failed: near "x{300}": syntax error \(checked by the database/],
    ["UPDATE no_such_table SET a = 1", /^query_failed: no such table: no_such_table \(checked by the database/]
  ])("%j without elicitation fails at once with SQLite's message; no dialog is shown", async (query, expected) => {
    server.script = () => "never" // a dialog would hold the call until the deadline
    const response = await call(query)
    expect(response.json.result.isError).toBe(true)
    expect(response.json.result.content[0].text).toMatch(expected)
    expect(server.asked).toHaveLength(0)
  })

  it("with elicitation a statement naming a missing column gets no form, only SQLite's message", async () => {
    const response = await call("UPDATE products SET no_such_column = 1", elicit)
    expect(response.json.result.resultType).toBe("complete")
    expect(response.json.result.content[0].text).toMatch(/^query_failed: no such column: no_such_column/)
  })

  it("insert_rows naming a missing table or column is refused before the dialog; confirm_destructive checks too", async () => {
    server.script = () => "never"
    const insert = (table: string, columns: Array<string>) =>
      postMcp(
        server.url,
        modernRequest("tools/call", {
          name: "insert_rows",
          arguments: { connection_id: server.connectionId, table, columns, rows: [[1]] }
        }),
        { authorization: `Bearer ${token}` }
      )
    expect((await insert("no_such_table", ["a"])).json.result.content[0].text).toMatch(
      /^not_found: the table "no_such_table" does not exist/
    )
    expect((await insert("products", ["no_such_column"])).json.result.content[0].text).toMatch(
      /^invalid_argument: unknown column "no_such_column"; the table has: id, sku/
    )
    const full = await server.tokenFor("fullAccess")
    const drop = await call("DROP TABLE no_such_table", {}, "confirm_destructive_operation", full)
    expect(drop.json.result.content[0].text).toMatch(/^query_failed: no such table: no_such_table/)
    expect(server.asked).toHaveLength(0)
  })
})
