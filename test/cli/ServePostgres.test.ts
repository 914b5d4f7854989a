// D-73 with the real `dbdesk serve` process: a backend ended mid-query must not end the process (item 1, proven
// with the safety net off), and an exception planted in pg's socket callback is caught by the net (item 3): logged
// redacted, that connection's call failed, every other connection and the endpoint still serving.
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, expect, it } from "vitest"
import {
  backendsSettle,
  eventually,
  type PostgresServer,
  runningStatements,
  startPostgres
} from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { expectConnectionFailure, expectServing, terminateBackends } from "../support/PostgresMcp.ts"
import { type ServeProcess, startServe } from "../support/ServeProcess.ts"
import { modernRequest, postMcp, tempHome } from "../support/TestServer.ts"

const LAUNCHER = join(import.meta.dirname, "../support/ServeWithInjectedFault.mjs")

describePostgres("dbdesk serve with PostgreSQL connections that fail (D-73)", () => {
  let postgres: PostgresServer
  let home: string
  const faulty = { id: randomUUID(), name: "Faulty (PostgreSQL)", port: 0 }
  const healthy = { id: randomUUID(), name: "Healthy (PostgreSQL)", port: 0 }
  let serve: ServeProcess | undefined

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(
      `CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL); INSERT INTO t VALUES (1, 'one'), (2, 'two'); ALTER TABLE t OWNER TO ${postgres.user}`
    )
    home = tempHome()
    writeFileSync(join(home, "settings.json"), JSON.stringify({ mcp: { requireAuth: false } }))
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [faulty, healthy].map((connection) => ({
          id: connection.id,
          name: connection.name,
          type: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password,
          sslMode: "disable",
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow",
          confirmQueries: "writes"
        }))
      }),
      { mode: 0o600 }
    )
  }, 120_000)

  afterEach(async () => {
    await serve?.stop()
    serve = undefined
  })

  afterAll(async () => {
    await postgres?.stop()
  }, 60_000)

  const call = (connection: { id: string }, query: string) =>
    postMcp(
      serve!.url,
      modernRequest("tools/call", { name: "execute_query", arguments: { connection_id: connection.id, query } })
    )

  const expectRow = async (connection: { id: string }) => {
    const answer = await call(connection, "SELECT label FROM t WHERE id = 2")
    expect(answer.json.result?.structuredContent?.rows, answer.text).toEqual([["two"]])
  }

  it(
    "a backend terminated during SELECT pg_sleep(20): the caller gets an error naming the connection and the process serves on, safety net off",
    async () => {
      serve = await startServe(home, { env: { DBDESK_DRIVER_NET: "off" } })
      const answer = call(faulty, "SELECT pg_sleep(20) AS serve_terminated")
      await eventually(async () => (await runningStatements(postgres, "serve_terminated")) === 1, "pg_sleep running")
      await terminateBackends(postgres, "serve_terminated")
      expectConnectionFailure(await answer, faulty)
      await expectServing(serve.url)
      expect(await backendsSettle(postgres, 2)).toEqual([])
      await expectRow(faulty)
      expect(serve.child.exitCode).toBeNull()
      expect(serve.output()).not.toMatch(/TypeError|uncaught/i)
    },
    90_000
  )

  it(
    "an exception planted in pg's socket callback: logged redacted, that call fails, the other connection and the endpoint serve on",
    async () => {
      serve = await startServe(home, { launcher: LAUNCHER })
      await expectRow(healthy)
      const answer = await call(faulty, "SELECT 'dbdesk-injected-fault' AS planted")
      expect(answer.json.result?.isError, answer.text).toBe(true)
      expect(answer.json.result.content[0].text).toMatch(
        /^query_failed: dbdesk's PostgreSQL driver failed unexpectedly on 'Faulty \(PostgreSQL\)'/
      )
      await eventually(
        () => /unexpected failure in the driver of 'Faulty \(PostgreSQL\)'/.test(serve!.output()),
        "the fault in the log"
      )
      expect(serve.output()).toContain("injected fault (session password [redacted])")
      expect(serve.output()).not.toContain(postgres.password)
      await expectServing(serve.url)
      await expectRow(healthy)
      await expectRow(faulty)
      expect(await backendsSettle(postgres, 2)).toEqual([])
      expect(serve.child.exitCode).toBeNull()
    },
    90_000
  )

  it(
    "the same planted exception with the safety net off ends the process (the net, not luck, kept it up)",
    async () => {
      serve = await startServe(home, { launcher: LAUNCHER, env: { DBDESK_DRIVER_NET: "off" } })
      void call(faulty, "SELECT 'dbdesk-injected-fault' AS planted").catch(() => undefined)
      expect(await serve.exited).not.toBeNull()
      expect(serve.output()).toContain("injected fault")
    },
    90_000
  )
})
