import Database from "better-sqlite3"
import { Effect, FastCheck } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PendingApproval } from "../../src/domain/Approval.ts"
import type { CuratedToolDefinition } from "../../src/domain/CuratedTool.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { CuratedToolSet } from "../../src/services/tools/CuratedToolSet.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let home: string
const asked: Array<PendingApproval> = []
const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(Effect.provide(effect, server.context))

export const ORDERS: CuratedToolDefinition = {
  name: "orders_by_region",
  description: "Orders of one region placed since a time",
  connection: "Shop",
  sql: "SELECT id, region FROM orders WHERE region = :region AND placed_at >= :since ORDER BY id",
  parameters: [{ name: "region", type: "text" }, { name: "since", type: "timestamp" }]
}
/** Each type bound and read back: the answer is one row holding the values as given. */
export const ECHO: CuratedToolDefinition = {
  name: "echo_values",
  description: "Returns its arguments",
  connection: "Shop",
  sql: "SELECT :t AS t, :i AS i, :n AS n, :b AS b, :d AS d, :ts AS ts, :e AS e, 'it''s :t' AS fixed -- :t\n",
  parameters: [
    { name: "t", type: "text" },
    { name: "i", type: "integer" },
    { name: "n", type: "number" },
    { name: "b", type: "boolean" },
    { name: "d", type: "date" },
    { name: "ts", type: "timestamp" },
    { name: "e", type: "enum", values: ["a", "b"] }
  ]
}
const RENAME: CuratedToolDefinition = {
  name: "rename_region",
  description: "Renames a region",
  connection: "Shop",
  sql: "UPDATE orders SET region = :to WHERE region = :from",
  parameters: [{ name: "from", type: "text" }, { name: "to", type: "text", secret: true }]
}
const writeTools = (tools: ReadonlyArray<unknown>) =>
  writeFileSync(join(home, "tools.json"), JSON.stringify({ version: 1, tools }, null, 2))

const call = (name: string, args: Record<string, unknown>, token = server.token) =>
  postMcp(server.url, modernRequest("tools/call", { name, arguments: args }), { authorization: `Bearer ${token}` })
const list = (token = server.token) =>
  postMcp(server.url, modernRequest("tools/list", {}), { authorization: `Bearer ${token}` })
const rowsOf = (response: { json: any }) =>
  response.json.result.structuredContent.rows as ReadonlyArray<ReadonlyArray<unknown>>
const activity = () =>
  run(Effect.flatMap(ActivityLog, (log) => Effect.zipRight(log.flush, log.list({ limit: 10_000 })))).then((entries) =>
    [...entries].reverse()
  )
const refresh = () => run(Effect.flatMap(CuratedToolSet, (set) => set.refresh))
const tokenWith = (tools: ReadonlyArray<string>) =>
  run(
    Effect.flatMap(Tokens, (tokens) =>
      tokens.create({ name: `set ${tools.join(",")}`, access: "readWrite", connections: "all", tools }))
  ).then((created) =>
    created.value
  )

beforeAll(async () => {
  home = tempHome()
  const path = join(home, "shop.db")
  const db = new Database(path)
  db.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL, placed_at TEXT NOT NULL);
    INSERT INTO orders (region, placed_at) VALUES ('north', '2026-01-05T10:00:00Z'), ('north', '2025-12-01T00:00:00Z'), ('south', '2026-02-01T00:00:00Z')`)
  db.close()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [
        {
          id: "shop",
          name: "Shop",
          type: "sqlite",
          path,
          externalAccess: "readWrite",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        },
        {
          id: "masked",
          name: "Masked shop",
          type: "sqlite",
          path,
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow",
          maskingRules: [{ pattern: "orders.placed_at", action: "mask" }]
        }
      ]
    }),
    { mode: 0o600 }
  )
  writeTools([
    ORDERS,
    ECHO,
    RENAME,
    { ...RENAME, name: "rename_region_approved", approvedInAdvance: true },
    { ...ORDERS, name: "switched_off", disabled: true },
    {
      ...ORDERS,
      name: "masked_orders",
      connection: "masked",
      sql: "SELECT id, placed_at FROM orders WHERE region = :region AND placed_at >= :since"
    },
    { ...RENAME, name: "rename_on_read_only", connection: "masked" }
  ])
  server = await startTestServer({
    home,
    ui: false,
    token: "readWrite",
    approvalPrompt: ApprovalPrompt.scripted(() => "approved", asked),
    settings: { limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 } }
  })
}, 60_000)

afterAll(async () => {
  await server?.stop()
})

describe("curated tools over MCP", () => {
  it("a saved statement is listed with an input schema generated from its parameters' types; a disabled one is not", async () => {
    const tools = (await list()).json.result.tools as ReadonlyArray<
      { name: string; inputSchema: unknown; annotations?: unknown }
    >
    const orders = tools.find((tool) => tool.name === "orders_by_region")
    // A reading tool carries MCP's read-only hint; a writing one keeps the defaults.
    expect(orders?.annotations).toEqual({ readOnlyHint: true })
    expect(tools.find((tool) => tool.name === "rename_region")?.annotations).toBeUndefined()
    expect(orders?.inputSchema).toEqual({
      type: "object",
      properties: { region: { type: "string" }, since: { type: "string", format: "date-time" } },
      required: ["region", "since"]
    })
    expect(tools.some((tool) => tool.name === "switched_off")).toBe(false)
    expect(tools.map((tool) => tool.name)).toEqual([...tools.map((tool) => tool.name)].sort())
  })

  it("a read runs without a dialog with its arguments bound, and the activity log names the tool and its arguments", async () => {
    asked.length = 0
    const answer = await call("orders_by_region", { region: "north", since: "2026-01-01T00:00:00Z" })
    expect(answer.json.result.isError, answer.text).toBe(false)
    expect(rowsOf(answer)).toEqual([[1, "north"]])
    expect(asked).toEqual([])
    const row = (await activity()).findLast((entry) => entry.action === "tool.curated")
    expect(row).toMatchObject({ subject: "orders_by_region", connectionId: "shop" })
    expect(JSON.parse(row!.details!)).toEqual({
      arguments: { region: "north", since: "2026-01-01T00:00:00Z" },
      tier: "safe"
    })
  })

  it("a curated tool never reaches what the connection's AI settings close: masking rules apply, a read-only connection refuses its write", async () => {
    const masked = await call("masked_orders", { region: "north", since: "2000-01-01T00:00:00Z" })
    expect(masked.json.result.isError, masked.text).toBe(false)
    expect(masked.text).not.toContain("2026-01-05T10:00:00Z")
    expect(rowsOf(masked).map((row) => row[0])).toEqual([1, 2])
    const write = await call("rename_on_read_only", { from: "north", to: "west" })
    expect(write.json.error?.code, write.text).toBe(-33007)
  })

  it("wrong arguments are an invalid_argument naming each one", async () => {
    const answer = await call("orders_by_region", { region: 3, since: "yesterday", extra: true })
    expect(answer.json.result.isError).toBe(true)
    expect(answer.json.result.structuredContent.error.code).toBe("invalid_argument")
    for (const part of ["region: expected a string", "since: expected a timestamp", "extra is not an argument"]) {
      expect(answer.text).toContain(part)
    }
  })

  it("a write asks for approval; one approved in advance does not, and each run says so in the activity log; a secret argument is redacted", async () => {
    asked.length = 0
    const asking = await call("rename_region", { from: "south", to: "east" })
    expect(asking.json.result.isError, asking.text).toBe(false)
    expect(asked.filter((approval) => approval.kind === "statement")).toHaveLength(1)
    asked.length = 0
    const approved = await call("rename_region_approved", { from: "east", to: "south" })
    expect(approved.json.result.isError, approved.text).toBe(false)
    expect(asked.filter((approval) => approval.kind === "statement")).toEqual([])
    const rows = (await activity()).filter((entry) =>
      entry.action === "tool.curated" && entry.subject?.startsWith("rename_region") === true
    )
    expect(rows.map((entry) => JSON.parse(entry.details!))).toEqual([
      { arguments: { from: "south", to: "[redacted]" }, tier: "write" },
      { arguments: { from: "east", to: "[redacted]" }, tier: "write", approvedInAdvance: true }
    ])
  })

  it("injection through any parameter stays one value and never changes the statement that runs (SQLite)", async () => {
    const drawn = FastCheck.oneof(
      FastCheck.string({
        unit: FastCheck.constantFrom(
          "'",
          "\"",
          "`",
          ";",
          "--",
          "/*",
          "*/",
          "/*!",
          "\\",
          "\u0000",
          "#",
          "$$",
          ":t",
          "?",
          " ",
          "a",
          "\n",
          "DROP TABLE orders"
        )
      }),
      FastCheck.string()
    )
    await FastCheck.assert(
      FastCheck.asyncProperty(drawn, async (text) => {
        const args = { t: text, i: 7, n: 1.5, b: true, d: "2026-02-28", ts: "2026-02-28T12:00:00Z", e: "b" }
        const answer = await call("echo_values", args)
        expect(answer.json.result.isError, answer.text).toBe(false)
        // One row: the text as given in its own column, every other value where it was bound, the literal intact.
        expect(rowsOf(answer)).toEqual([[text, 7, 1.5, 1, "2026-02-28", "2026-02-28T12:00:00Z", "b", "it's :t"]])
        // The region drawn as text is compared as one value: nothing matches, nothing else runs.
        const orders = await call("orders_by_region", { region: text, since: "2000-01-01T00:00:00Z" })
        expect(rowsOf(orders)).toEqual([])
      }),
      { numRuns: 60 }
    )
    const count = await call("execute_query", { connection_id: "shop", query: "SELECT count(*) FROM orders" })
    expect(rowsOf(count)).toEqual([[3]])
  }, 120_000)

  it("the official client calls a curated tool with each type", async () => {
    const client = await connectModernClient(server.url, { token: server.token! })
    const result = await client.callTool({
      name: "echo_values",
      arguments: { t: "héllo", i: -3, n: 2.25, b: false, d: "2024-02-29", ts: "2024-02-29T23:59:59+02:00", e: "a" }
    })
    expect(result.isError).toBe(false)
    expect((result.structuredContent as { rows: unknown }).rows).toEqual([[
      "héllo",
      -3,
      2.25,
      0,
      "2024-02-29",
      "2024-02-29T23:59:59+02:00",
      "a",
      "it's :t"
    ]])
    await client.close()
  })

  it("an invalid tools.json keeps the previous set in force; a fixed one is served", async () => {
    writeFileSync(join(home, "tools.json"), "{\n  \"version\": 1,\n  \"tools\": [\n    { \"name\": \"broken\" \n  ]\n}")
    const kept = await refresh()
    expect(kept.problem).toMatch(/^line \d+: /)
    expect(kept.tools.map((tool) => tool.name)).toContain("orders_by_region")
    writeTools([{ ...ORDERS, name: "orders_v2" }])
    const fixed = await refresh()
    expect(fixed.problem).toBeUndefined()
    expect(fixed.tools.map((tool) => tool.name)).toEqual(["orders_v2"])
    const names = ((await list()).json.result.tools as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    expect(names).toContain("orders_v2")
    expect(names).not.toContain("orders_by_region")
    writeTools([ORDERS, ECHO, RENAME])
    await refresh()
  })
})

describe("toolsets per token", () => {
  it("a token limited to a toolset sees and can call only that set; outside it a call is refused like a missing scope", async () => {
    const value = await tokenWith(["list_connections", "orders_by_region"])
    const names = ((await list(value)).json.result.tools as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    expect(names).toEqual(["list_connections", "orders_by_region"])
    const allowed = await call("orders_by_region", { region: "north", since: "2026-01-01T00:00:00Z" }, value)
    expect(allowed.json.result.isError, allowed.text).toBe(false)
    for (
      const [name, args] of [["execute_query", { connection_id: "shop", query: "SELECT 1" }], [
        "echo_values",
        {}
      ]] as const
    ) {
      const refused = await call(name, args, value)
      expect(refused.json.error?.code, refused.text).toBe(-33007)
    }
  })

  it("the lean preset lists list_connections, describe_table, execute_query and the curated tools", async () => {
    const value = await tokenWith(["lean"])
    const answer = await list(value)
    const names = (answer.json.result.tools as ReadonlyArray<{ name: string }>).map((tool) => tool.name)
    expect(names).toEqual([
      "describe_table",
      "echo_values",
      "execute_query",
      "list_connections",
      "orders_by_region",
      "rename_region"
    ])
    const builtInBytes = Buffer.byteLength(
      JSON.stringify(
        (answer.json.result.tools as ReadonlyArray<{ name: string }>).filter((tool) =>
          ["describe_table", "execute_query", "list_connections"].includes(tool.name)
        )
      )
    )
    expect(builtInBytes).toBeLessThanOrEqual(1_500)
  })
})
