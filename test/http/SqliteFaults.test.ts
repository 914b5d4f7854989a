// D-73 on SQLite: the driver's child process killed mid-query, its database file deleted (mid-query and
// between calls) or locked by another process. Oracle as for PostgreSQL: the caller's error names the connection
// (or is -33003 at the deadline), the endpoint still answers, nothing is left running, and the next call (once the
// file is back or unlocked) returns the right row.
import { renameSync } from "node:fs"
import Database from "better-sqlite3"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Drivers } from "../../src/services/Drivers.ts"
import type { SqliteDriver } from "../../src/services/drivers/SqliteDriver.ts"
import { eventually } from "../support/PostgresHarness.ts"
import { expectServing } from "../support/PostgresMcp.ts"
import { busyProcess, pidAlive } from "../support/RawRequests.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const ENDLESS_CTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

let server: TestServer
let connection: { id: string; name: string; path: string }
let expected: string

beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const [sample] = await Effect.runPromise(Context.get(server.context, Connections).list)
  if (sample?.type !== "sqlite") throw new Error("no sample connection")
  connection = { id: sample.id, name: sample.name, path: sample.path }
  const db = new Database(connection.path, { readonly: true })
  expected = db.prepare("SELECT email FROM customers WHERE id = 2").pluck().get() as string
  db.close()
})
afterAll(() => server.stop())

const call = (query: string, timeoutSeconds = 60) =>
  postMcp(
    server.url,
    modernRequest("tools/call", {
      name: "execute_query",
      arguments: { connection_id: connection.id, query, timeout_seconds: timeoutSeconds }
    })
  )

const childPid = async (): Promise<number | undefined> => {
  const [sample] = await Effect.runPromise(Context.get(server.context, Connections).list)
  const driver = (await Effect.runPromise(Context.get(server.context, Drivers).forConnection(sample!))) as SqliteDriver
  return driver.childPid()
}

/** Starts the endless statement and resolves once its child process is visibly working on it. */
const startEndless = async (timeoutSeconds = 60) => {
  await call("SELECT 1")
  const pid = (await childPid())!
  const answer = call(ENDLESS_CTE, timeoutSeconds)
  await busyProcess(() => pid, 5, "the child running the statement")
  return { pid, answer }
}

const expectNamedFailure = (answer: Awaited<ReturnType<typeof call>>) => {
  expect(answer.json.result?.isError, answer.text).toBe(true)
  expect(answer.json.result.content[0].text, answer.text).toMatch(/^(not_connected|query_failed|timeout): /)
  expect(answer.json.result.content[0].text, answer.text).toContain(`'${connection.name}'`)
}

const expectHealed = async () => {
  await expectServing(server.url)
  const answer = await call("SELECT email FROM customers WHERE id = 2")
  expect(answer.json.result?.structuredContent?.rows, answer.text).toEqual([[expected]])
}

describe("SQLite faults under a running call (D-73)", () => {
  it(
    "the child killed with SIGKILL mid-query: an error naming the connection, then a fresh child answers",
    async () => {
      const { pid, answer } = await startEndless()
      process.kill(pid, "SIGKILL")
      expectNamedFailure(await answer)
      await eventually(() => !pidAlive(pid), "the killed child gone")
      await expectHealed()
    },
    60_000
  )

  it(
    "the database file deleted between calls: not_connected naming the connection and the path, then served again once it is back",
    async () => {
      await call("SELECT 1")
      const aside = `${connection.path}.aside`
      renameSync(connection.path, aside)
      try {
        const answer = await call("SELECT email FROM customers WHERE id = 2")
        expectNamedFailure(answer)
        expect(answer.json.result.content[0].text).toContain(connection.path)
      } finally {
        renameSync(aside, connection.path)
      }
      await expectHealed()
    },
    60_000
  )

  it(
    "the database file deleted mid-query: the deadline ends the statement, the next call says the file is missing",
    async () => {
      const { pid, answer } = await startEndless(2)
      const aside = `${connection.path}.aside`
      renameSync(connection.path, aside)
      try {
        const settled = await answer
        expect(settled.json.error, settled.text).toMatchObject({ code: -33003, data: { deadline: "statement" } })
        await eventually(() => !pidAlive(pid), "the stopped child gone")
        expectNamedFailure(await call("SELECT email FROM customers WHERE id = 2"))
      } finally {
        renameSync(aside, connection.path)
      }
      await expectHealed()
    },
    60_000
  )

  it(
    "the database file locked by another process: an error naming the connection, then served once the lock is released",
    async () => {
      await call("SELECT 1")
      const holder = new Database(connection.path)
      holder.exec("BEGIN EXCLUSIVE")
      try {
        expectNamedFailure(await call("SELECT email FROM customers WHERE id = 2"))
      } finally {
        holder.exec("ROLLBACK")
        holder.close()
      }
      await expectHealed()
    },
    60_000
  )
})
