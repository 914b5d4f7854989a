// C5-h on every write path, not execute_query alone: a connection whose external access is readOnly refuses each
// tool that writes (insert_rows, execute_query, confirm_destructive_operation; SQL and search engine alike) with 403
// -33007 before any approval is asked and before anything reaches the database, even to a fullAccess token; the
// policy explainer shows the same gate refusing. The app dialog answers at once (and is recorded), so a regression
// fails here in a second with the path named instead of waiting on a dialog.
import Database from "better-sqlite3"
import { Context, Effect, Redacted } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { Connection } from "../../src/domain/Connection.ts"
import type { TokenSummary } from "../../src/domain/Token.ts"
import { Connections } from "../../src/services/Connections.ts"
import { explainStatement } from "../../src/services/policy/PolicyExplain.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { SEARCH_ID, startSearchMcpServer, type SearchMcpServer } from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp, tempHome } from "../support/TestServer.ts"

const SEARCH_READONLY = "search-read-only"
const SQLITE_READONLY = "sqlite-read-only"

let fixture: SearchMcpServer
let token: { readonly summary: TokenSummary; readonly value: string }
let sqlitePath: string
/** The ids the store gave the two read-only connections. */
const ids = new Map<string, string>()
const idOf = (key: string) => ids.get(key)!

beforeAll(async () => {
  sqlitePath = join(tempHome(), "read-only.db")
  const db = new Database(sqlitePath)
  db.exec(
    "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL); INSERT INTO items (label) VALUES ('a'), ('b')"
  )
  db.close()
  fixture = await startSearchMcpServer([])
  const search = (await Effect.runPromise(Context.get(fixture.server.context, Connections).get(SEARCH_ID))) as
    & Connection
    & { readonly apiKey: Redacted.Redacted }
  const connections = Context.get(fixture.server.context, Connections)
  ids.set(
    SEARCH_READONLY,
    (await Effect.runPromise(
      connections.add(
        {
          ...search,
          apiKey: Redacted.value(search.apiKey),
          name: "Books, read only",
          externalAccess: "readOnly"
        } as any
      )
    )).id
  )
  ids.set(
    SQLITE_READONLY,
    (await Effect.runPromise(
      connections.add(
        {
          name: "Items, read only",
          type: "sqlite",
          path: sqlitePath,
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow"
        } as any
      )
    )).id
  )
  const created = await Effect.runPromise(
    Context.get(fixture.server.context, Tokens).create({ name: "full", access: "fullAccess", connections: "all" })
  )
  token = { summary: created.token, value: created.value }
}, 60_000)
afterAll(() => fixture?.stop())
beforeEach(() => {
  fixture.asked.length = 0
  fixture.engine.requests.length = 0
})

const IMPORT = [
  "POST /collections/books/documents/import?action=create",
  JSON.stringify({ id: "900", title: "Never", year: 2001, rating: 1, pages: 1, in_stock: true })
].join("\n")

/** [connection, tool, arguments, the statement the explainer is asked about (undefined: insert_rows)]. */
const WRITES: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  [SQLITE_READONLY, "insert_rows", { table: "items", columns: ["label"], rows: [["c"]] }],
  [SQLITE_READONLY, "execute_query", { query: "INSERT INTO items (label) VALUES ('c')" }],
  [SQLITE_READONLY, "confirm_destructive_operation", { query: "DROP TABLE items" }],
  [SEARCH_READONLY, "insert_rows", { table: "books", columns: ["id", "title"], rows: [["900", "Never"]] }],
  [SEARCH_READONLY, "execute_query", { query: IMPORT }],
  [SEARCH_READONLY, "execute_query", { query: "PATCH /collections/books/documents/1\n{\"title\": \"Changed\"}" }],
  [SEARCH_READONLY, "confirm_destructive_operation", { query: "DELETE /collections/books/documents/1" }]
]

describe("C5-h a readOnly connection refuses every write tool before any approval", () => {
  it.each(WRITES)(
    "C5-h %s: %s is refused with 403 -33007 external_access_read_only, nothing asked, nothing sent",
    async (connectionId, tool, args) => {
      const answer = await postMcp(
        fixture.server.url,
        modernRequest("tools/call", { name: tool, arguments: { connection_id: idOf(connectionId), ...args } }),
        { authorization: `Bearer ${token.value}` }
      )
      expect(fixture.asked.map((approval) => approval.kind), `${tool} asked for approval on a readOnly connection`)
        .toEqual([])
      expect(answer.status, answer.text).toBe(403)
      expect(answer.json.error).toMatchObject({
        code: -33007,
        data: { reason: "external_access_read_only", connectionId: idOf(connectionId) }
      })
      expect(fixture.engine.requests.filter((request) => request.method !== "GET"), "a write reached the search engine")
        .toEqual([])
    },
    15_000
  )

  it("C5-h nothing was written: the SQLite table and the collection are as they were", async () => {
    const db = new Database(sqlitePath, { readonly: true })
    expect(db.prepare("SELECT label FROM items ORDER BY id").pluck().all()).toEqual(["a", "b"])
    db.close()
    const count = await postMcp(
      fixture.server.url,
      modernRequest("tools/call", {
        name: "count_rows",
        arguments: { connection_id: idOf(SEARCH_READONLY), table: "books" }
      }),
      { authorization: `Bearer ${token.value}` }
    )
    expect(count.json.result.structuredContent.row_count).toBe(30)
  }, 15_000)

  it.each(WRITES.filter(([, tool]) => tool !== "insert_rows"))(
    "C5-h the policy explainer shows the write-access gate refusing: %s %s",
    async (connectionId, tool, args) => {
      const connection =
        (await Effect.runPromise(Context.get(fixture.server.context, Connections).get(idOf(connectionId))))!
      const explained = explainStatement(token.summary, connection, {
        tool: tool as "execute_query" | "confirm_destructive_operation",
        sql: String(args["query"]),
        elicitation: false,
        connectionApproval: "alwaysApprove",
        grant: "unknown",
        now: Date.now()
      })
      expect(explained.steps.at(-1)).toMatchObject({ gate: "write_access", verdict: "refuse" })
      expect(explained.steps.some((step) => step.gate === "approval")).toBe(false)
      expect(explained.outcome).toMatchObject({ kind: "refused", code: -33007, reason: "external_access_read_only" })
    }
  )

  it(
    "C5-h insert_rows is refused by the same gate the explainer shows for an INSERT: the same error, word for word",
    async () => {
      for (const connectionId of [SQLITE_READONLY, SEARCH_READONLY]) {
        const connection =
          (await Effect.runPromise(Context.get(fixture.server.context, Connections).get(idOf(connectionId))))!
        const sql = connection.type === "search" ? IMPORT : "INSERT INTO items (label) VALUES ('c')"
        const explained = explainStatement(token.summary, connection, {
          tool: "execute_query",
          sql,
          elicitation: false,
          connectionApproval: "alwaysApprove",
          grant: "unknown",
          now: Date.now()
        })
        const [, , args] = WRITES.find(([id, tool]) => id === connectionId && tool === "insert_rows")!
        const answer = await postMcp(
          fixture.server.url,
          modernRequest("tools/call", {
            name: "insert_rows",
            arguments: { connection_id: idOf(connectionId), ...args }
          }),
          { authorization: `Bearer ${token.value}` }
        )
        expect(explained.steps.find((step) => step.gate === "write_access")?.detail).toBe(answer.json.error.message)
      }
    },
    15_000
  )
})
