// D-98: the UI API's `database` parameter on SQLite, which has only `main`: another database is refused, never
// silently read from the file.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { Connections } from "../../src/services/Connections.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let origin = ""
let cookie = ""
let id = ""
let path = ""

beforeAll(async () => {
  path = join(mkdtempSync(join(tmpdir(), "dbdesk-dbparam-")), "notes.db")
  const db = new Database(path)
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept')")
  db.close()
  server = await startTestServer({ token: "readOnly", settings: { ui: { port: 0 } } })
  id = (await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Notes",
      type: "sqlite",
      path,
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    })
  )).id
  const ui = Context.get(server.context, UiAddress)
  origin = ui.origin
  const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
  cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
}, 60_000)

afterAll(async () => {
  await server?.stop()
})

const call = async (path: string, body?: unknown) => {
  const response = await fetch(`${origin}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { cookie, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await response.json() }
}

it("D-98 SQLite reads `main` when asked for it and refuses any other database, for listings, pages and a Save", async () => {
  expect((await call(`/api/connections/${id}/tables?database=main`)).body.tables.map((t: any) => t.name)).toEqual([
    "notes"
  ])
  const listed = await call(`/api/connections/${id}/tables?database=other`)
  expect(listed.status).toBeGreaterThanOrEqual(400)
  expect(JSON.stringify(listed.body)).toMatch(/main/)
  const page = await call(`/api/connections/${id}/tables/notes/rows?database=other`, {
    filters: [],
    logic: "and",
    sort: [],
    limit: 10,
    offset: 0
  })
  expect(page.status).toBeGreaterThanOrEqual(400)
  const edits = { inserts: [], updates: [{ key: { id: 1 }, changes: { body: "lost" } }], deletes: [] }
  const preview = await call(`/api/connections/${id}/tables/notes/sql-edits/preview`, edits)
  const applied = await call(`/api/connections/${id}/tables/notes/sql-edits/apply?database=other`, {
    edits,
    statements: preview.body.statements
  })
  expect(applied.status).toBeGreaterThanOrEqual(400)
  const db = new Database(path, { readonly: true })
  expect(db.prepare("SELECT body FROM notes").all()).toEqual([{ body: "kept" }])
  db.close()
})
