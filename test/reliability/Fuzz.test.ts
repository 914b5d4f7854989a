// Generated and mutated requests against `dbdesk serve` (2,000 in npm test, 100,000 in
// npm run reliability). Oracle: every request gets an answer of the contract — never a 5xx for a client mistake,
// never a reset, never a hang — with no configured secret in it; the server keeps serving; its memory returns to
// the baseline (RSS growth ≤ 10 %); no write happens without approval (every dialog is denied, and the sample
// database and the search collection are byte-identical at the end); the activity chain still verifies.
import { createHash, randomBytes } from "node:crypto"
import { join } from "node:path"
import * as http from "node:http"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { runProcess } from "../cli/CliHarness.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { runFuzz } from "./Fuzzer.ts"
import type { FuzzTarget } from "./FuzzRequests.ts"
import { FULL, partDirectory, reportFigures, size } from "./Run.ts"
import {
  closedPort,
  denyEveryApproval,
  fakeSecret,
  heapAfterGc,
  type PreparedServe,
  prepareServe,
  rssKib
} from "./ServeUnderTest.ts"

const COUNT = Number(process.env["DBDESK_FUZZ_COUNT"] ?? size(2_000, 100_000))
/**
 * The Acceptance bound (≤ 10 %) is for the full run, measured from a baseline after 10,000 requests. A short run is
 * still warming up (JIT, caches filling to their bounds), so it only catches a gross leak.
 */
const RSS_BOUND = size(0.5, 0.1)
/** How long the server is left idle after the run before its memory is measured. */
const IDLE_MS = size(1_000, 5_000)
const SEED = Number(process.env["DBDESK_FUZZ_SEED"] ?? Date.now() % 1_000_000)

/** SHA-256 of every row of every table of a SQLite file: what "no write happened" is checked against. */
const databaseDigest = (path: string): string => {
  const db = new Database(path, { readonly: true })
  try {
    const hash = createHash("sha256")
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck()
      .all() as Array<string>
    for (const table of tables) {
      hash.update(
        `${table}\n${
          JSON.stringify(
            db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).raw().all(),
            (
              _key,
              value
            ) => (typeof value === "bigint" ? value.toString() : Buffer.isBuffer(value) ? value.toString("hex") : value)
          )
        }`
      )
    }
    return hash.digest("hex")
  } finally {
    db.close()
  }
}

const collectionDigest = async (engine: RunningEngine) => {
  const response = await fetch(`${engine.url}/collections/books/documents/export`, {
    headers: { "x-typesense-api-key": engine.apiKey }
  })
  return createHash("sha256").update(await response.text()).digest("hex")
}

/** server/discover on a connection of its own: does the server still answer? */
const probe = (port: number) =>
  new Promise<boolean>((resolve) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: "probe",
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    })
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/mcp",
      agent: false,
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
        "content-length": Buffer.byteLength(body)
      }
    }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode === 200))
    })
    request.setTimeout(15_000, () => {
      request.destroy()
      resolve(false)
    })
    request.on("error", () => resolve(false))
    request.end(body)
  })

let engine: RunningEngine
let serve: PreparedServe
const secrets: Array<string> = []

beforeAll(async () => {
  const directory = partDirectory("fuzz")
  const searchKey = fakeSecret("search-key")
  engine = await startEngine({ apiKey: searchKey })
  await engine.createCollection(books)
  await engine.importDocuments("books", bookDocuments(40))
  const common = { externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }
  const connections = [
    {
      ...common,
      id: "fuzz-search",
      name: "Fuzz search",
      type: "search",
      host: engine.host,
      port: engine.port,
      apiKey: searchKey
    },
    {
      ...common,
      id: "fuzz-pg-down",
      name: "Fuzz PostgreSQL (down)",
      type: "postgresql",
      host: "127.0.0.1",
      port: await closedPort(),
      database: "app",
      user: "app",
      password: fakeSecret("pg-password")
    },
    {
      ...common,
      id: "fuzz-mysql-down",
      name: "Fuzz MySQL (down)",
      type: "mysql",
      host: "127.0.0.1",
      port: await closedPort(),
      user: "app",
      password: fakeSecret("mysql-password"),
      aiPolicy: "askEachTime"
    },
    {
      ...common,
      id: "fuzz-search-down",
      name: "Fuzz search (down)",
      type: "search",
      host: "127.0.0.1",
      port: await closedPort(),
      apiKey: fakeSecret("search-key-down")
    }
  ]
  serve = await prepareServe({
    directory,
    part: "fuzz",
    settings: { limits: { requestsPerMinute: 10_000_000, concurrentPerCaller: 64 } },
    connections,
    inspect: true
  })
  secrets.push(
    searchKey,
    ...connections.flatMap((connection) =>
      "password" in connection ? [connection.password] : "apiKey" in connection ? [connection.apiKey] : []
    )
  )
  secrets.push(
    ...Object.values(serve.tokens),
    serve.defaultToken,
    serve.bridgeToken(),
    new URL(serve.process.uiLaunchUrl).searchParams.get("key")!
  )
}, 180_000)

afterAll(async () => {
  await serve?.process.stop()
  await engine?.stop()
})

describe("fuzzing the MCP endpoint (D-89)", () => {
  it(
    `C7.1-a C4.1-a C4.2-g C8-a C8-b ${
      COUNT.toLocaleString("en")
    } generated and mutated requests: every one answered per the contract, no 5xx, reset or hang, no secret, no write without approval, memory back to baseline`,
    async () => {
      const before = { sample: databaseDigest(join(serve.home, "sample.db")), books: await collectionDigest(engine) }
      const approvals = denyEveryApproval(serve)
      const target: FuzzTarget = {
        sampleId: serve.sampleId,
        otherIds: ["fuzz-search", "fuzz-pg-down", "fuzz-mysql-down", "fuzz-search-down"],
        tokens: {
          ...serve.tokens,
          default: serve.defaultToken,
          bridge: serve.bridgeToken(),
          none: undefined,
          unknown: `dbd_${randomBytes(32).toString("base64url")}`
        },
        states: [],
        cursors: [],
        sessions: []
      }
      const pid = serve.process.pid
      let baseline: Promise<{ readonly heapKib: number; readonly rssKib: number }> | undefined
      let halfway: Promise<{ readonly heapKib: number; readonly rssKib: number }> | undefined
      const started = Date.now()
      let peakKib = 0
      /** RSS every 5 s of the run, in MiB (a leak grows along it; a warm server plateaus). */
      const trend: Array<number> = []
      const sampler = setInterval(() => {
        try {
          const kib = rssKib(pid)
          peakKib = Math.max(peakKib, kib)
          if ((Date.now() - started) % 5_000 < 1_000) trend.push(Math.round(kib / 1024))
        } catch {
          // the process is gone; the crash figure says so
        }
      }, 1_000)
      const stats = await runFuzz({
        port: serve.process.port,
        target,
        count: COUNT,
        concurrency: size(8, 16),
        seed: SEED,
        secrets,
        probe: async () => {
          engine.requests.length = 0
          return probe(serve.process.port)
        },
        probeEvery: 500,
        warmup: Math.max(1_000, Math.floor(COUNT / 10)),
        onWarm: () => {
          baseline = heapAfterGc(serve.process)
        },
        checkpoints: [Math.floor(COUNT / 2)],
        onCheckpoint: () => {
          halfway = heapAfterGc(serve.process)
        }
      })
      const seconds = (Date.now() - started) / 1000
      clearInterval(sampler)
      await approvals.stop()
      // Memory after the run, once the server is idle (timers of finished requests fire, sockets close), measured as at
      // the baseline: after two full collections through the inspector, so garbage not yet collected counts at neither.
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
      const survived = serve.process.child.exitCode === null && serve.process.child.signalCode === null
      const start = await baseline!
      const middle = await halfway!
      const end = survived ? await heapAfterGc(serve.process) : { heapKib: 0, rssKib: 0 }
      const growth = (end.rssKib - start.rssKib) / start.rssKib
      const heapGrowth = (end.heapKib - start.heapKib) / start.heapKib
      const stillServing = await probe(serve.process.port)
      const after = { sample: databaseDigest(join(serve.home, "sample.db")), books: await collectionDigest(engine) }
      await serve.process.stop()
      const verify = runProcess(["activity", "verify", "--home", serve.home])
      const growthPercent = Math.round(growth * 1000) / 10
      reportFigures("fuzz", [
        { name: "requests fuzzed", value: stats.sent },
        { name: "answered", value: stats.answered },
        { name: "5xx for client mistakes", value: stats.fiveHundreds, required: "0", ok: stats.fiveHundreds === 0 },
        { name: "503 for a database that does not answer", value: stats.unavailable },
        { name: "503 legacy sessions full (held by callers of more access)", value: stats.sessionsFull },
        { name: "contract violations", value: stats.violations, required: "0", ok: stats.violations === 0 },
        { name: "resets", value: stats.resets, required: "0", ok: stats.resets === 0 },
        { name: "hangs", value: stats.hangs, required: "0", ok: stats.hangs === 0 },
        { name: "crashes", value: survived ? 0 : 1, required: "0", ok: survived },
        { name: "failed probes", value: stats.failedProbes, required: "0", ok: stats.failedProbes === 0 },
        { name: "secrets in answers", value: stats.secretsFound, required: "0", ok: stats.secretsFound === 0 },
        { name: "RSS after warm-up (after GC)", value: Math.round(start.rssKib / 1024), unit: " MiB" },
        { name: "RSS peak during the run", value: Math.round(peakKib / 1024), unit: " MiB" },
        { name: "RSS at half the run (after GC)", value: Math.round(middle.rssKib / 1024), unit: " MiB" },
        { name: "RSS after the run (idle, after GC)", value: Math.round(end.rssKib / 1024), unit: " MiB" },
        {
          name: "RSS growth over the second half",
          value: Math.round(((end.rssKib - middle.rssKib) / middle.rssKib) * 1000) / 10,
          unit: " %"
        },
        {
          name: "RSS growth",
          value: growthPercent,
          unit: " %",
          required: FULL ? "≤ 10 %" : `≤ ${RSS_BOUND * 100} % (short run)`,
          ok: growth <= RSS_BOUND
        },
        {
          name: "JS heap after GC: warm-up → half → after the run",
          value: `${Math.round(start.heapKib / 1024)} → ${Math.round(middle.heapKib / 1024)} → ${
            Math.round(end.heapKib / 1024)
          }`,
          unit: " MiB"
        },
        { name: "JS heap growth", value: Math.round(heapGrowth * 1000) / 10, unit: " %" },
        { name: "dialogs denied", value: approvals.denied() },
        { name: "input_required answers", value: stats.inputRequired },
        {
          name: "writes without approval",
          value: before.sample === after.sample && before.books === after.books ? 0 : 1,
          required: "0",
          ok: before.sample === after.sample && before.books === after.books
        },
        { name: "requests per second", value: Math.round(stats.sent / seconds) }
      ], {
        seed: SEED,
        rssTrendMiB: trend,
        byStatus: stats.byStatus,
        findings: stats.findings,
        labels: stats.labels,
        millis: stats.millis,
        mode: FULL ? "full" : "short"
      })

      const findings = stats.findings.slice(0, 10).map((finding) =>
        `#${finding.index} ${finding.kind} [${finding.label}] ${finding.detail}`
      ).join("\n")
      expect(stats.sent).toBe(COUNT)
      expect(survived, "the server process exited during the fuzz run").toBe(true)
      expect(stillServing, "the server stopped answering after the fuzz run").toBe(true)
      expect({
        fiveHundreds: stats.fiveHundreds,
        violations: stats.violations,
        resets: stats.resets,
        hangs: stats.hangs,
        secrets: stats.secretsFound,
        probes: stats.failedProbes
      }, `seed ${SEED}:\n${findings}`)
        .toEqual({ fiveHundreds: 0, violations: 0, resets: 0, hangs: 0, secrets: 0, probes: 0 })
      expect(after, "a write happened without approval").toEqual(before)
      expect(verify.code, verify.stdout + verify.stderr).toBe(0)
      expect(
        growth,
        `RSS grew from ${start.rssKib} KiB to ${end.rssKib} KiB (JS heap ${start.heapKib} → ${end.heapKib} KiB)`
      ).toBeLessThanOrEqual(RSS_BOUND)
    },
    FULL ? 3_600_000 : 240_000
  )
})
