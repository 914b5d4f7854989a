// D-93: the MCP panel's list of open continued reads (fetch_more handles): what each reads, for whom, how far, when it
// ends, and Close, which ends the read (its handle is then not_found for the AI client).
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import type { Client } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { expectNoHandle, fetchMore, pageOf, query } from "../support/Continuation.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let client: Client
let origin = ""
let cookie = ""
let id = ""

beforeAll(async () => {
  const path = join(mkdtempSync(join(tmpdir(), "dbdesk-handles-")), "numbers.db")
  const db = new Database(path)
  db.exec("CREATE TABLE numbers (n INTEGER PRIMARY KEY)")
  const insert = db.prepare("INSERT INTO numbers VALUES (?)")
  for (let n = 1; n <= 30; n++) insert.run(n)
  db.close()
  server = await startTestServer({ token: "readOnly", settings: { ui: { port: 0 } } })
  id = (await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Numbers",
      type: "sqlite",
      path,
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow"
    })
  )).id
  client = await connectModernClient(server.url, { token: server.token! })
  const ui = Context.get(server.context, UiAddress)
  origin = ui.origin
  const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
  cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
}, 60_000)

afterAll(async () => {
  await client?.close()
  await server?.stop()
})

const api = async (path: string, method = "GET"): Promise<any> =>
  (await fetch(`${origin}${path}`, { method, headers: { cookie } })).json()

it("D-93: the open reads are listed with connection, token, statement, rows so far and expiry; Close ends one", async () => {
  expect(await api("/api/continuations")).toEqual([])
  const sql = "SELECT n FROM numbers ORDER BY n"
  const first = await query(client, id, sql, 5)
  const tokenName =
    (await Effect.runPromise(Context.get(server.context, Tokens).list())).find((token) => !token.bridge)!.name
  const [listed, ...others] = await api("/api/continuations")
  expect(others).toEqual([])
  expect(listed).toMatchObject({ connection: "Numbers", caller: tokenName, statement: sql, rows: 5 })
  expect(Date.parse(listed.expiresAt)).toBeGreaterThan(Date.parse(listed.openedAt))
  const second = pageOf(await fetchMore(client, first.handle!, 10))
  const [moved] = await api("/api/continuations")
  expect(moved).toMatchObject({ id: listed.id, rows: 15 })
  expect(JSON.stringify(moved)).not.toContain(second.handle!)
  expect(await api(`/api/continuations/${listed.id}`, "DELETE")).toEqual({ closed: true })
  expect(await api("/api/continuations")).toEqual([])
  expectNoHandle(await fetchMore(client, second.handle!))
  expect(await api(`/api/continuations/${listed.id}`, "DELETE")).toEqual({ closed: false })
})
