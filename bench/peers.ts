/**
 * D-63's comparison (`npm run bench -- --peers`, also part of `--quick` and the full run): dbdesk against the
 * database MCP servers users pick instead, the same throwaway PostgreSQL 15 database and role for all, and the same
 * rows in a SQLite file: DBHub 1.4.0, MCP Toolbox for Databases 1.12.0 and (stdio only) the reference
 * server-postgres 0.6.2, next to the node:http ceiling answering dbdesk's own bytes. Peers are installed on demand
 * into `.cache/tools` (bench/peers/install.ts); one that cannot be installed or started is left out with the reason.
 *
 * Order: memory first, on servers that have only answered the probes (RSS after 1,000 and more mixed requests), then
 * HTTP throughput (servers rotated round by round), then stdio (each server started as a host starts it; dbdesk
 * through its bridge), then, for PostgreSQL, round trips and statements per dbdesk call.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import { startPostgres, type PostgresServer } from "../test/support/PostgresHarness.ts"
import type { CellResult, CellSpec, CellsPlan, MemoryPlan, MemoryPoint, Request } from "./load.ts"
import { expectResult, responseOf, send } from "./mcp.ts"
import { installPeers } from "./peers/install.ts"
import { type PeerSection, type StdioCell } from "./peers/report.ts"
import {
  httpRequest,
  type HttpServer,
  type SqlTool,
  startCeiling,
  startDbhub,
  startToolbox,
  stdioCommands,
  type Target
} from "./peers/servers.ts"
import { StdioPeer } from "./peers/stdio.ts"
import { startTripCounter } from "./peers/trips.ts"
import { ceilingKey, type CeilingAnswer } from "./servers/ceiling.ts"
import { type RunningDbdesk, startDbdesk } from "./servers/dbdesk.ts"

export interface PeersOptions {
  readonly rounds: number
  readonly warmupMs: number
  readonly durationMs: number
  /** Mixed requests per server for the memory rows (checkpoints at 1,000, 10,000, 25,000, 50,000 up to this). */
  readonly memoryRequests: number
  /** Another built dbdesk checkout to measure (DBDESK_BENCH_ROOT), with this harness. */
  readonly root?: string
  /** Runs a load plan in the generator process (bench/run.ts owns the processes). */
  readonly runLoad: <A>(name: string, plan: CellsPlan | MemoryPlan) => Promise<A>
}

export interface PeersResult {
  readonly missing: ReadonlyArray<string>
  readonly sections: ReadonlyArray<PeerSection>
  readonly postgresRoundTrips?: {
    readonly calls: number
    readonly roundTripsPerCall: number
    readonly statementsPerCall: number
    readonly statements: ReadonlyArray<string>
  }
}

export const ROW_QUERY = "SELECT * FROM items WHERE id = 1"
const ERROR_QUERY = "SELECT * FROM no_such_table"
const ROWS = 1000

const seedPostgres = (postgres: PostgresServer) =>
  postgres.sql(
    `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL, created timestamptz NOT NULL);
    INSERT INTO items SELECT g, 'item ' || g, g * 1.5, timestamptz '2026-01-01' + g * interval '1 hour' FROM generate_series(1, ${ROWS}) g;
    GRANT SELECT ON items TO ${postgres.user}`
  ).then(() => postgres.sql("VACUUM ANALYZE items"))

const seedSqlite = (path: string) => {
  const db = new Database(path)
  db.exec(
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC NOT NULL, created TEXT NOT NULL)"
  )
  const insert = db.prepare("INSERT INTO items VALUES (?, ?, ?, ?)")
  db.transaction(() => {
    for (let g = 1; g <= ROWS; g++) {
      insert.run(g, `item ${g}`, g * 1.5, new Date(Date.UTC(2026, 0, 1) + g * 3_600_000).toISOString())
    }
  })()
  db.close()
}

/** A server of one section with the requests it gets. */
interface Entry {
  readonly server: string
  readonly url: string
  readonly pid: number
  readonly sql: Request
  readonly toolsList: Request
  readonly sqlError: Request
}

const entryOf = (server: Pick<HttpServer, "name" | "url" | "pid" | "token">, tool: SqlTool): Entry => ({
  server: server.name,
  url: server.url,
  pid: server.pid,
  sql: httpRequest({ method: "tools/call", name: tool.name, arguments: tool.args(ROW_QUERY), id: 1 }, server.token),
  toolsList: httpRequest({ method: "tools/list", id: 2 }, server.token),
  sqlError: httpRequest(
    { method: "tools/call", name: tool.name, arguments: tool.args(ERROR_QUERY), id: 3 },
    server.token
  )
})

/** Every server must answer its two scenarios with a successful result before anything is measured. */
const probe = async (entry: Entry) => {
  const sizes: Record<string, number> = {}
  for (const [name, request] of [["sql", entry.sql], ["tools/list", entry.toolsList]] as const) {
    const reply = await send(entry.url, request.body, request.headers)
    expectResult(`${entry.server} ${name}`, reply)
    sizes[name] = Buffer.byteLength(reply.body)
  }
  return sizes
}

const ceilingAnswers = async (dbdesk: Entry): Promise<ReadonlyArray<CeilingAnswer>> => {
  const answers: Array<CeilingAnswer> = []
  for (const request of [dbdesk.sql, dbdesk.toolsList]) {
    const reply = await send(dbdesk.url, request.body, request.headers)
    answers.push({
      key: ceilingKey(JSON.parse(request.body)),
      sse: false,
      preamble: "",
      resultText: JSON.stringify(responseOf(reply)["result"])
    })
  }
  return answers
}

const memoryMix = (
  entry: Entry
): ReadonlyArray<Request> => [entry.sql, entry.toolsList, entry.sql, entry.sqlError, entry.sql]
export const MEMORY_MIX = "per 5 requests: 3 × 1-row SQL, 1 × tools/list, 1 × SQL error (no such table)"

const checkpointsUpTo = (n: number) =>
  [1_000, 10_000, 25_000, 50_000, n].filter((c, i, list) => c <= n && list.indexOf(c) === i)

const dbdeskConnections = (postgres: PostgresServer, sqlitePath: string, tripPort?: number) => [
  {
    id: "bench-postgres",
    name: "Bench (PostgreSQL)",
    type: "postgresql",
    host: postgres.host,
    port: postgres.port,
    database: postgres.database,
    user: postgres.user,
    password: postgres.password,
    sslMode: "disable",
    aiPolicy: "alwaysAllow"
  },
  { id: "bench-sqlite", name: "Bench (SQLite)", type: "sqlite", path: sqlitePath, aiPolicy: "alwaysAllow" },
  ...(tripPort === undefined
    ? []
    : [{
      id: "bench-trips",
      name: "Bench (PostgreSQL, counted)",
      type: "postgresql",
      host: "127.0.0.1",
      port: tripPort,
      database: postgres.database,
      user: "dbdesk_trips",
      password: "trips-pw",
      sslMode: "disable",
      aiPolicy: "alwaysAllow"
    }])
]

const dbdeskTool = (connectionId: string): SqlTool => ({
  name: "execute_query",
  args: (query) => ({ connection_id: connectionId, query })
})

export const runPeers = async (options: PeersOptions, log: (line?: string) => void): Promise<PeersResult> => {
  const installed = await installPeers()
  for (const reason of installed.missing) log(`peer left out: ${reason}`)
  const peers = installed.peers
  const work = mkdtempSync(join(tmpdir(), "dbdesk-bench-peers-"))
  const postgres = await startPostgres({ logStatements: false })
  const cleanups: Array<() => Promise<void>> = [
    async () => postgres.stop(),
    async () => rmSync(work, { recursive: true, force: true })
  ]
  try {
    await seedPostgres(postgres)
    // A second role whose sessions log every statement with its duration, behind the round-trip counter.
    await postgres.sql(
      `CREATE ROLE dbdesk_trips LOGIN PASSWORD 'trips-pw'; GRANT SELECT ON items TO dbdesk_trips; ALTER ROLE dbdesk_trips SET log_min_duration_statement = 0`
    )
    const trips = await startTripCounter(postgres.host, postgres.port)
    cleanups.unshift(trips.stop)
    const sqlitePath = join(work, "items.db")
    seedSqlite(sqlitePath)
    const dbdesk: RunningDbdesk = await startDbdesk({
      connections: dbdeskConnections(postgres, sqlitePath, trips.port),
      ...(options.root === undefined ? {} : { root: options.root })
    })
    cleanups.unshift(dbdesk.stop)
    log(
      `PostgreSQL ${postgres.version} on 127.0.0.1:${postgres.port} (log_statement none, fsync off), table items (${ROWS} rows); SQLite ${sqlitePath}; dbdesk ${dbdesk.url}${
        options.root === undefined ? "" : ` from ${options.root}`
      }`
    )
    const sections: Array<PeerSection> = []
    const targets: ReadonlyArray<
      { readonly database: "PostgreSQL" | "SQLite"; readonly target: Target; readonly connectionId: string }
    > = [
      {
        database: "PostgreSQL",
        target: {
          kind: "postgresql",
          host: postgres.host,
          port: postgres.port,
          database: postgres.database,
          user: postgres.user,
          password: postgres.password
        },
        connectionId: "bench-postgres"
      },
      { database: "SQLite", target: { kind: "sqlite", path: sqlitePath }, connectionId: "bench-sqlite" }
    ]
    for (const { database, target, connectionId } of targets) {
      log()
      log(`peers, ${database}:`)
      sections.push(await runSection(options, log, { database, target, dbdesk, connectionId, peers, work }))
    }
    const roundTrips = await countRoundTrips(dbdesk, postgres, trips)
    log(
      `dbdesk → PostgreSQL per 1-row execute_query: ${roundTrips.roundTripsPerCall.toFixed(2)} round trips, ${
        roundTrips.statementsPerCall.toFixed(2)
      } statements (${roundTrips.statements.join("; ")})`
    )
    return { missing: installed.missing, sections, postgresRoundTrips: roundTrips }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined)
  }
}

interface SectionContext {
  readonly database: "PostgreSQL" | "SQLite"
  readonly target: Target
  readonly dbdesk: RunningDbdesk
  readonly connectionId: string
  readonly peers: Awaited<ReturnType<typeof installPeers>>["peers"]
  readonly work: string
}

const runSection = async (
  options: PeersOptions,
  log: (line?: string) => void,
  context: SectionContext
): Promise<PeerSection> => {
  const { dbdesk, peers, target } = context
  const started: Array<HttpServer | Omit<HttpServer, "sqlTool">> = []
  const left: Array<string> = []
  try {
    const dbdeskEntry = entryOf(
      { name: "dbdesk", url: dbdesk.url, pid: dbdesk.pid, token: dbdesk.token },
      dbdeskTool(context.connectionId)
    )
    const entries: Array<Entry> = [dbdeskEntry]
    const attempt = async (name: string, start: () => Promise<HttpServer>) => {
      try {
        const server = await start()
        started.push(server)
        entries.push(entryOf(server, server.sqlTool))
      } catch (error) {
        left.push(`${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
      }
    }
    if (peers.node22 !== undefined && peers.dbhub !== undefined) {
      await attempt("DBHub", () => startDbhub({ node22: peers.node22!, dbhub: peers.dbhub! }, target))
    }
    if (peers.toolbox !== undefined) await attempt("Toolbox", () => startToolbox({ toolbox: peers.toolbox! }, target))
    const sizes: Record<string, Record<string, number>> = {}
    for (const entry of entries) sizes[entry.server] = await probe(entry)
    const fixture = join(context.work, `ceiling-${target.kind}.json`)
    writeFileSync(fixture, JSON.stringify(await ceilingAnswers(dbdeskEntry)))
    const ceiling = await startCeiling(fixture)
    started.push(ceiling)
    const ceilingEntry = entryOf(ceiling, dbdeskTool(context.connectionId))
    sizes["ceiling"] = await probe(ceilingEntry)
    for (const reason of left) log(`  left out: ${reason}`)
    log(
      `  answer bytes: ${
        Object.entries(sizes).map(([server, s]) =>
          `${server} ${s["sql"]} (1-row SQL) / ${s["tools/list"]} (tools/list)`
        ).join("; ")
      }`
    )

    let memory: Record<string, ReadonlyArray<MemoryPoint>> | undefined
    if (context.database === "PostgreSQL" && options.memoryRequests > 0) {
      memory = {}
      for (const entry of entries) {
        log(`  memory: ${entry.server}, ${options.memoryRequests} mixed requests at concurrency 16`)
        memory[entry.server] = await options.runLoad<ReadonlyArray<MemoryPoint>>(`memory-${entry.server}`, {
          kind: "memory",
          url: entry.url,
          pid: entry.pid,
          mix: memoryMix(entry),
          concurrency: 16,
          checkpoints: checkpointsUpTo(options.memoryRequests)
        })
      }
    }

    const http = [...entries, ceilingEntry]
    const cell = (scenario: string, concurrency: number, pick: (entry: Entry) => Request): CellSpec => ({
      scenario,
      concurrency,
      entries: http.map((entry) => ({ server: entry.server, url: entry.url, request: pick(entry) }))
    })
    const cells = await options.runLoad<ReadonlyArray<CellResult<string>>>(`cells-${target.kind}`, {
      kind: "cells",
      rounds: options.rounds,
      warmupMs: options.warmupMs,
      durationMs: options.durationMs,
      cells: [
        cell("execute_query 1 row", 1, (e) => e.sql),
        cell("execute_query 1 row", 16, (e) => e.sql),
        cell("tools/list", 1, (e) => e.toolsList),
        cell("tools/list", 16, (e) => e.toolsList)
      ]
    })

    const stdio = await runStdio(options, log, context)
    return {
      database: context.database,
      left,
      answerBytes: sizes,
      cells,
      stdio,
      ...(memory === undefined ? {} : { memory })
    }
  } finally {
    for (const server of started) await server.stop().catch(() => undefined)
  }
}

const runStdio = async (
  options: PeersOptions,
  log: (line?: string) => void,
  context: SectionContext
): Promise<ReadonlyArray<StdioCell>> => {
  const root = options.root ?? join(import.meta.dirname, "..")
  const servers: Array<{ name: string; peer: StdioPeer; sqlTool: SqlTool }> = []
  const bridge = {
    command: process.execPath,
    args: [join(root, "bin/dbdesk-mcp.mjs")],
    env: { ...process.env, DBDESK_HOME: context.dbdesk.home }
  }
  try {
    for (
      const { name, command, sqlTool } of [{
        name: "dbdesk",
        command: bridge,
        sqlTool: dbdeskTool(context.connectionId)
      }, ...stdioCommands(context.peers, context.target)]
    ) {
      const peer = new StdioPeer(name, command)
      try {
        await peer.initialize()
        const answer = await peer.request("tools/call", { name: sqlTool.name, arguments: sqlTool.args(ROW_QUERY) })
        const result = answer["result"] as Record<string, unknown> | undefined
        if (result === undefined || result["isError"] === true) {
          throw new Error(`no result for the 1-row query: ${JSON.stringify(answer).slice(0, 300)}`)
        }
        servers.push({ name, peer, sqlTool })
      } catch (error) {
        log(`  stdio left out: ${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
        await peer.stop()
      }
    }
    const cells: Array<StdioCell> = []
    for (const scenario of ["execute_query 1 row", "tools/list"] as const) {
      const call = (server: (typeof servers)[number]): [string, Record<string, unknown>] =>
        scenario === "tools/list"
          ? ["tools/list", {}]
          : ["tools/call", { name: server.sqlTool.name, arguments: server.sqlTool.args(ROW_QUERY) }]
      for (const server of servers) await server.peer.measure(...call(server), options.warmupMs)
      const rounds = servers.map(() => [] as Array<Awaited<ReturnType<StdioPeer["measure"]>>>)
      for (let round = 0; round < options.rounds; round++) {
        for (let position = 0; position < servers.length; position++) {
          const index = (position + round) % servers.length
          const server = servers[index]!
          rounds[index]!.push(await server.peer.measure(...call(server), options.durationMs))
        }
      }
      servers.forEach((server, index) => {
        cells.push({ scenario, server: server.name, rounds: rounds[index]! })
        log(
          `  stdio ${scenario.padEnd(28)} ${server.name.padEnd(16)} calls/s per round: ${
            rounds[index]!.map((r) => r.rps.toFixed(0)).join(" ")
          }`
        )
      })
    }
    return cells
  } finally {
    for (const server of servers) await server.peer.stop()
  }
}

/**
 * PostgreSQL's own count of what one dbdesk call sends (the counted connection's role logs every statement,
 * log_min_duration_statement = 0) and the round trips on the wire (bench/peers/trips.ts), over sequential calls on a
 * warm session.
 */
const countRoundTrips = async (
  dbdesk: RunningDbdesk,
  postgres: PostgresServer,
  trips: Awaited<ReturnType<typeof startTripCounter>>
) => {
  const entry = entryOf(
    { name: "dbdesk", url: dbdesk.url, pid: dbdesk.pid, token: dbdesk.token },
    dbdeskTool("bench-trips")
  )
  const calls = 50
  for (let i = 0; i < 5; i++) {
    expectResult("counted connection", await send(entry.url, entry.sql.body, entry.sql.headers))
  }
  const logBefore = postgres.log().length
  trips.reset()
  for (let i = 0; i < calls; i++) await send(entry.url, entry.sql.body, entry.sql.headers)
  const counted = trips.trips()
  await new Promise((resolve) => setTimeout(resolve, 300))
  // The extended protocol logs parse, bind and execute of each statement; an execute line is one statement run.
  const executed = postgres.log().slice(logBefore).split("\n")
    .map((line) => /duration: [\d.]+ ms\s+(?:execute [^:]*|statement): (.*)$/.exec(line)?.[1])
    .filter((text): text is string => text !== undefined)
  return {
    calls,
    roundTripsPerCall: counted / calls,
    statementsPerCall: executed.length / calls,
    statements: executed.slice(0, Math.round(executed.length / calls))
  }
}
