// D-94: a long execute_query tells the rows read so far and the seconds since it began, as the rows arrive, between
// the contract's "Executing" (0.3) and "Done" (1.0), through the official client's onprogress.
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

interface Update {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

const withServer = (connection: () => Record<string, unknown>) => {
  const state: { server?: TestServer; client?: Client; id: string } = { id: randomUUID() }
  beforeAll(async () => {
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id: state.id,
          name: "Slow",
          externalAccess: "readOnly",
          aiPolicy: "alwaysAllow",
          ...connection()
        }]
      }),
      { mode: 0o600 }
    )
    state.server = await startTestServer({ home, settings: { mcp: { requireAuth: false } }, token: "readOnly" })
    state.client = await connectModernClient(state.server.url, { token: state.server.token! })
  }, 120_000)
  afterAll(async () => {
    await state.client?.close()
    await state.server?.stop()
  }, 60_000)
  return state
}

/** The updates of one call, and checks that hold for any read: increasing, on the contract's scale, rows told. */
const progressOf = async (client: Client, connectionId: string, query: string, maxRows: number) => {
  const seen: Array<Update> = []
  const result: any = await client.callTool(
    { name: "execute_query", arguments: { connection_id: connectionId, query, max_rows: maxRows } },
    { onprogress: (update) => seen.push(update) }
  )
  expect(result.isError, JSON.stringify(result.content)).toBe(false)
  const values = seen.map((update) => update.progress)
  expect(values).toStrictEqual([...values].sort((a, b) => a - b))
  expect(new Set(values).size).toBe(values.length)
  expect(seen.every((update) => update.total === 1)).toBe(true)
  expect(values.slice(0, 2)).toStrictEqual([0, 0.3])
  expect(values.at(-1)).toBe(1)
  const rows = seen.slice(2, -1).map((update) => {
    const match = /^(\d+) rows? read, (\d+\.\d) s$/.exec(update.message ?? "")
    expect(match, update.message).not.toBeNull()
    expect(update.progress).toBeGreaterThan(0.3)
    expect(update.progress).toBeLessThan(1)
    return { rows: Number(match![1]), seconds: Number(match![2]) }
  })
  return { rows, result }
}

/** A count_rows call's updates: 0, "Counting" at 0.3, the seconds while it counts (increasing, below 1), 1. */
const countProgressOf = async (client: Client, connectionId: string, table: string) => {
  const seen: Array<Update> = []
  const result: any = await client.callTool(
    { name: "count_rows", arguments: { connection_id: connectionId, table } },
    { onprogress: (update) => seen.push(update) }
  )
  expect(result.isError, JSON.stringify(result.content)).toBe(false)
  const values = seen.map((update) => update.progress)
  expect(values).toStrictEqual([...values].sort((a, b) => a - b))
  expect(new Set(values).size).toBe(values.length)
  expect(seen.every((update) => update.total === 1)).toBe(true)
  expect(seen.slice(0, 2).map((update) => [update.progress, update.message])).toStrictEqual([[
    0,
    "Resolving connection"
  ], [0.3, "Counting"]])
  expect(seen.at(-1)).toMatchObject({ progress: 1, message: "Done" })
  const seconds = seen.slice(2, -1).map((update) => {
    const match = /^counting, (\d+\.\d) s$/.exec(update.message ?? "")
    expect(match, update.message).not.toBeNull()
    expect(update.progress).toBeGreaterThan(0.3)
    expect(update.progress).toBeLessThan(1)
    return Number(match![1])
  })
  expect(seconds.length).toBeGreaterThanOrEqual(2)
  expect(seconds).toStrictEqual([...seconds].sort((a, b) => a - b))
  return result.structuredContent
}

/** At least two updates in between, with rows and seconds growing: the numbers are real, not fixed steps. */
const expectGrowing = (told: ReadonlyArray<{ rows: number; seconds: number }>, maxRows: number) => {
  expect(told.length).toBeGreaterThanOrEqual(2)
  for (let i = 1; i < told.length; i++) {
    expect(told[i]!.rows).toBeGreaterThan(told[i - 1]!.rows)
    expect(told[i]!.seconds).toBeGreaterThanOrEqual(told[i - 1]!.seconds)
  }
  expect(told.at(-1)!.rows).toBeLessThanOrEqual(maxRows + 1)
}

describePostgres("D-94 progress with real numbers on PostgreSQL (official client)", () => {
  let postgres: PostgresServer
  beforeAll(async () => {
    postgres = await startPostgres()
    // Six rows a quarter of a second apart: a count that takes a second and a half.
    await postgres.sql(
      `CREATE VIEW slow_count AS SELECT n FROM generate_series(1, 6) n WHERE pg_sleep(0.25)::text = ''; GRANT SELECT ON slow_count TO ${postgres.user}`
    )
  }, 120_000)
  afterAll(async () => {
    await postgres?.stop()
  }, 60_000)
  const state = withServer(() => ({
    type: "postgresql",
    host: postgres.host,
    port: postgres.port,
    database: postgres.database,
    user: postgres.user,
    password: postgres.password,
    sslMode: "disable"
  }))

  it("D-94: a slow read tells the rows read so far and the seconds, increasing, between 0.3 and 1", async () => {
    // Wide rows leave the server one by one (its output buffer is 8 KB), a tenth of a second apart.
    const { rows, result } = await progressOf(
      state.client!,
      state.id,
      "SELECT n, repeat('x', 9000) AS wide, pg_sleep(0.1)::text AS pause FROM generate_series(1, 20) n",
      20
    )
    expectGrowing(rows, 20)
    expect(result.structuredContent.rows).toHaveLength(20)
  }, 60_000)

  it("D-94: a long count_rows tells the seconds it has counted, increasing, between 0.3 and 1", async () => {
    expect(await countProgressOf(state.client!, state.id, "slow_count")).toMatchObject({ row_count: 6 })
  }, 60_000)
})

describeMariadb("D-94 progress with real numbers on MariaDB (official client)", () => {
  let mariadb: MariadbServer
  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(
      `CREATE SQL SECURITY INVOKER VIEW ${mariadb.database}.slow_count AS SELECT seq AS n FROM seq_1_to_6 WHERE SLEEP(0.25) = 0`
    )
  }, 120_000)
  afterAll(async () => {
    await mariadb?.stop()
  }, 60_000)
  const state = withServer(() => ({
    type: "mysql",
    host: mariadb.host,
    port: mariadb.port,
    database: mariadb.database,
    user: mariadb.user,
    password: mariadb.password,
    sslMode: "disabled"
  }))

  it("D-94: a slow read tells the rows read so far and the seconds, increasing, between 0.3 and 1", async () => {
    // Rows half the server's network buffer: it sends them as they are made, a tenth of a second apart.
    const { rows, result } = await progressOf(
      state.client!,
      state.id,
      "SELECT seq AS n, REPEAT('x', 8000) AS wide, SLEEP(0.1) AS pause FROM seq_1_to_20",
      20
    )
    expectGrowing(rows, 20)
    expect(result.structuredContent.rows).toHaveLength(20)
  }, 60_000)

  it("D-94: a long count_rows tells the seconds it has counted, increasing, between 0.3 and 1", async () => {
    expect(await countProgressOf(state.client!, state.id, "slow_count")).toMatchObject({ row_count: 6 })
  }, 60_000)
})

describe("D-94 progress with real numbers on SQLite (official client)", () => {
  const state = withServer(() => {
    const path = join(tempHome(), "slow.db")
    // A view whose count walks a few million generated rows: a count that takes a second or more.
    new Database(path).exec(
      "CREATE TABLE t (n INTEGER); CREATE VIEW big AS WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 10000000) SELECT n FROM s"
    ).close()
    return { type: "sqlite", path }
  })

  it("D-94: the child process tells the rows it has read, increasing, between 0.3 and 1", async () => {
    // Each row costs a count over a recursive sequence (a few tens of ms), so the rows leave the iterator over time.
    const slow = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 20) " +
      "SELECT n, (WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 200000 + s.n) SELECT count(*) FROM k) AS work FROM s"
    const { rows, result } = await progressOf(state.client!, state.id, slow, 20)
    expectGrowing(rows, 20)
    expect(result.structuredContent.rows).toHaveLength(20)
  }, 60_000)

  it("D-94: a long count_rows tells the seconds it has counted, increasing, between 0.3 and 1", async () => {
    expect(await countProgressOf(state.client!, state.id, "big")).toMatchObject({
      row_count: 10000000,
      is_approximate: false
    })
  }, 60_000)
})
