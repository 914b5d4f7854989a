// The in-process dbdesk server in front of a harness PostgreSQL, with the D-73 oracle: the caller's error
// names the connection, the endpoint still answers, no backend is left busy, and the next call returns its row.
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { backendsSettle, type PostgresServer } from "./PostgresHarness.ts"
import { modernRequest, postMcp, type RawResponse, startTestServer, tempHome, type TestServer } from "./TestServer.ts"

export interface PgConnection {
  readonly id: string
  readonly name: string
  /** The port dbdesk dials: the server's own, or a proxy's. */
  readonly port: number
}

export interface PostgresMcp {
  /** The server; `server.token` is a readWrite token every call sends (writes are approved by a scripted dialog). */
  readonly server: TestServer
  readonly call: (
    connection: PgConnection,
    name: string,
    args: Record<string, unknown>,
    id?: string | number
  ) => Promise<RawResponse>
  /** Runs the statement through execute_query and returns its result (fails the test on any error). */
  readonly rows: (connection: PgConnection, query: string) => Promise<ReadonlyArray<ReadonlyArray<unknown>>>
  readonly stop: () => Promise<void>
}

/** A dbdesk connection entry for the harness server through `port`, writes allowed, approved by a scripted dialog. */
export const pgConnection = (name: string, port: number): PgConnection => ({ id: randomUUID(), name, port })

export const startPostgresMcp = async (
  postgres: PostgresServer,
  connections: ReadonlyArray<PgConnection>,
  limits: Record<string, number> = {}
): Promise<PostgresMcp> => {
  watchUncaught()
  const home = tempHome()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: connections.map((connection) => ({
        id: connection.id,
        name: connection.name,
        type: "postgresql",
        host: postgres.host,
        port: connection.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable",
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes"
      }))
    }),
    { mode: 0o600 }
  )
  const server = await startTestServer({
    home,
    settings: {
      mcp: { requireAuth: false },
      limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64, ...limits }
    },
    approvalPrompt: ApprovalPrompt.scripted(() => "approved"),
    token: "readWrite"
  })
  const call = (connection: PgConnection, name: string, args: Record<string, unknown>, id: string | number = 1) =>
    postMcp(
      server.url,
      modernRequest("tools/call", { name, arguments: { connection_id: connection.id, ...args } }, id),
      { authorization: `Bearer ${server.token}` }
    )
  const rows = async (connection: PgConnection, query: string) => {
    const answer = await call(connection, "execute_query", { query })
    expect(answer.json.error, answer.text).toBeUndefined()
    expect(answer.json.result.isError, answer.text).toBe(false)
    return answer.json.result.structuredContent.rows as ReadonlyArray<ReadonlyArray<unknown>>
  }
  return { server, call, rows, stop: () => server.stop() }
}

/** The endpoint still answers `server/discover` (wire contract): the process is alive and serving. */
export const expectServing = async (url: string): Promise<void> => {
  const answer = await postMcp(url, modernRequest("server/discover"))
  expect(answer.status).toBe(200)
  expect(answer.json.result.supportedVersions).toContain("2026-07-28")
}

/**
 * The caller's answer to a call whose connection broke: a tool error whose text names the connection, or the
 * contract's -33002 (cancelled) / -33003 (deadline) where the scenario calls for them.
 */
export const expectConnectionFailure = (
  answer: RawResponse,
  connection: PgConnection,
  codes: ReadonlyArray<number> = []
): void => {
  if (answer.json?.error !== undefined) {
    expect(codes, answer.text).toContain(answer.json.error.code)
    return
  }
  expect(answer.json?.result?.isError, answer.text).toBe(true)
  expect(answer.json.result.content[0].text, answer.text).toMatch(/^(not_connected|query_failed|timeout): /)
  expect(answer.json.result.content[0].text, answer.text).toContain(`'${connection.name}'`)
}

/**
 * Exceptions that escaped every promise while the in-process server ran: in `dbdesk serve` each one would have
 * ended the process (the D-73 crash), so the oracle treats any as a failure. Vitest's own handler still runs.
 */
const uncaught: Array<unknown> = []
let watching = false
export const watchUncaught = (): void => {
  if (watching) return
  watching = true
  process.on("uncaughtException", (error) => uncaught.push(error))
  process.on("unhandledRejection", (error) => uncaught.push(error))
}

export const expectNoUncaught = (): void => {
  expect(uncaught.splice(0).map(String)).toEqual([])
}

/** The rest of the oracle: serving, no busy backend within 2 s, and the next call on the connection returns its row. */
export const expectHealed = async (
  mcp: PostgresMcp,
  postgres: PostgresServer,
  connection: PgConnection
): Promise<void> => {
  await expectServing(mcp.server.url)
  expect(await backendsSettle(postgres, 2)).toEqual([])
  expect(await mcp.rows(connection, "SELECT label FROM t WHERE id = 2")).toEqual([["two"]])
  expectNoUncaught()
}

/** Ends the backends of the role under test whose current statement contains `marker` (what a DBA or a failover does). */
export const terminateBackends = (postgres: PostgresServer, marker: string) =>
  postgres.sql<{ ended: boolean }>(
    "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE usename = $1 AND backend_type = 'client backend' AND position($2 in query) > 0",
    [postgres.user, marker]
  )
