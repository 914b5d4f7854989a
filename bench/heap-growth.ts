/**
 * What grows in dbdesk's heap with use (D-39, "memory comes back"): `node --import tsx bench/heap-growth.ts [N]`.
 * Starts dbdesk with `--heapsnapshot-signal`, sends N (default 50,000) mixed requests at concurrency 16 — reads,
 * writes refused by scope, tool errors, resources, prompts, completion, failed authentications with a new token each
 * time, a new clientInfo name on every call, cancel notifications — snapshots the heap after 1,000, 10,000 and all N
 * requests (a snapshot collects garbage first; D-81), and prints the object groups that grew between each
 * two. Not part of `npm run bench`: a diagnosis, not a measurement.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readRssKb } from "./proc.ts"
import { startDbdesk } from "./servers/dbdesk.ts"

const total = Number(process.argv[2] ?? 50_000)
/** `--rss`: no snapshots (writing one inflates RSS for good), only dbdesk's RSS every 5,000 requests. */
const rssOnly = process.argv.includes("--rss")
const WARM = 5_000
/** Where the heap is snapshotted (D-81: 1k, 10k and 50k). */
const SNAPSHOTS = [1_000, 10_000, total].filter((n, i, list) => n <= total && list.indexOf(n) === i)
const CONCURRENCY = 16
const dir = mkdtempSync(join(tmpdir(), "dbdesk-heap-"))
const dbdesk = await startDbdesk({ nodeFlags: ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`] })
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
const connection = dbdesk.connectionId

const meta = (client: string) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: client, version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {}
})

type Spec = {
  readonly method: string
  readonly params?: Record<string, unknown>
  readonly token?: string
  readonly notification?: boolean
}

const tool = (name: string, args: Record<string, unknown>): Spec => ({
  method: "tools/call",
  params: { name, arguments: { connection_id: connection, ...args } }
})
const mix: ReadonlyArray<() => Spec> = [
  () => ({ method: "tools/list" }),
  () => tool("list_connections", {}),
  () => tool("execute_query", { query: "SELECT * FROM orders LIMIT 1" }),
  () => tool("execute_query", { query: "SELECT * FROM orders LIMIT 1000" }),
  () => tool("execute_query", { query: "SELECT * FROM no_such_table" }),
  () => tool("browse_table", { table: "customers", limit: 50 }),
  () => tool("describe_table", { table: "orders" }),
  () => tool("explain_query", { query: "SELECT * FROM orders WHERE id = 1" }),
  () => ({ method: "resources/read", params: { uri: `dbdesk://connections/${connection}/schema` } }),
  () => ({ method: "resources/read", params: { uri: `dbdesk://connections/${connection}/history?limit=100` } }),
  () => ({ method: "prompts/get", params: { name: "explain_table", arguments: { connection, table: "orders" } } }),
  () => ({
    method: "completion/complete",
    params: {
      ref: { type: "ref/prompt", name: "explain_table" },
      argument: { name: "table", value: "o" },
      context: { arguments: { connection } }
    }
  }),
  () => ({ method: "tools/list", token: `dbd_${randomBytes(32).toString("base64url")}` }),
  () => ({
    method: "notifications/cancelled",
    params: { requestId: randomBytes(4).toString("hex") },
    notification: true
  })
]

let id = 0
const post = (spec: Spec) =>
  new Promise<number>((resolve, reject) => {
    const client = `heap-client-${randomBytes(6).toString("hex")}`
    const body = JSON.stringify({
      jsonrpc: "2.0",
      ...(spec.notification === true ? {} : { id: ++id }),
      method: spec.method,
      params: { ...spec.params, _meta: meta(client) }
    })
    const name = (spec.params?.["name"] ?? spec.params?.["uri"]) as string | undefined
    const request = http.request(dbdesk.url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": spec.method,
        ...(name === undefined ? {} : { "mcp-name": name }),
        authorization: `Bearer ${spec.token ?? dbdesk.token}`,
        "content-length": String(Buffer.byteLength(body))
      }
    }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
      response.on("error", reject)
    })
    request.setTimeout(
      60_000,
      () => request.destroy(new Error(`no answer within 60 s to ${spec.method} ${name ?? ""}`))
    )
    request.on("error", reject)
    request.end(body)
  })

let sent = 0
const statuses = new Map<number, number>()
const run = async (until: number) => {
  const loop = async () => {
    while (sent < until) {
      const spec = mix[sent++ % mix.length]!()
      const status = await post(spec)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, loop))
}

const snapshot = async (): Promise<string> => {
  const before = new Set(readdirSync(dir))
  process.kill(dbdesk.pid, "SIGUSR2")
  // the snapshot is written on dbdesk's main thread: wait for the file, then for a request to be answered after it
  for (let waited = 0; waited < 120_000; waited += 100) {
    const file = readdirSync(dir).find((name) => name.endsWith(".heapsnapshot") && !before.has(name))
    if (file !== undefined) {
      await post({ method: "tools/list" })
      return join(dir, file)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error("no heap snapshot was written within 120 s")
}

interface Group {
  count: number
  bytes: number
}

/** Self sizes of a snapshot's objects grouped by type and constructor (or string/closure name). */
const groups = (path: string): Map<string, Group> => {
  const snap = JSON.parse(readFileSync(path, "utf8")) as {
    snapshot: { meta: { node_fields: Array<string>; node_types: [Array<string>] } }
    nodes: Array<number>
    strings: Array<string>
  }
  const fields = snap.snapshot.meta.node_fields
  const width = fields.length
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((field) => fields.indexOf(field)) as [
    number,
    number,
    number
  ]
  const types = snap.snapshot.meta.node_types[0]
  const result = new Map<string, Group>()
  for (let index = 0; index < snap.nodes.length; index += width) {
    const type = types[snap.nodes[index + typeAt]!] ?? "?"
    const rawName = snap.strings[snap.nodes[index + nameAt]!] ?? "?"
    const name = type === "string" || type === "concatenated string" || type === "sliced string"
      ? "(strings)"
      : rawName.slice(0, 60)
    const key = `${type} ${name}`
    const group = result.get(key) ?? { count: 0, bytes: 0 }
    group.count++
    group.bytes += snap.nodes[index + sizeAt]!
    result.set(key, group)
  }
  return result
}

const rssCheckpoints = async () => {
  for (let checkpoint = WARM; checkpoint <= total; checkpoint += WARM) {
    await run(checkpoint)
    console.log(
      `RSS after ${String(checkpoint).padStart(6)} requests: ${(readRssKb(dbdesk.pid) / 1024).toFixed(1)} MiB`
    )
  }
  console.log(`statuses ${[...statuses].map(([status, n]) => `${status}×${n}`).join(", ")}`)
}

const sum = (map: Map<string, Group>) => [...map.values()].reduce((all, group) => all + group.bytes, 0)

const printGrowth = (from: number, a: Map<string, Group>, to: number, b: Map<string, Group>) => {
  console.log(
    `heap after ${from}: ${(sum(a) / 2 ** 20).toFixed(1)} MiB; after ${to}: ${
      (sum(b) / 2 ** 20).toFixed(1)
    } MiB; largest growth (bytes, objects, group):`
  )
  const grown = [...b].map(([key, group]) => {
    const before = a.get(key) ?? { count: 0, bytes: 0 }
    return { key, count: group.count - before.count, bytes: group.bytes - before.bytes }
  }).filter((group) => group.bytes > 0).sort((x, y) => y.bytes - x.bytes).slice(0, 15)
  for (const group of grown) {
    console.log(`  ${String(group.bytes).padStart(10)} ${String(group.count).padStart(8)}  ${group.key}`)
  }
}

const heapGrowth = async () => {
  // RSS is read before each snapshot: writing one inflates it
  const taken: Array<{ requests: number; rssKb: number; heap: Map<string, Group> }> = []
  for (const at of SNAPSHOTS) {
    await run(at)
    const rssKb = readRssKb(dbdesk.pid)
    taken.push({ requests: at, rssKb, heap: groups(await snapshot()) })
  }
  console.log(`requests ${total} (statuses ${[...statuses].map(([status, n]) => `${status}×${n}`).join(", ")})`)
  console.log(
    `RSS before each snapshot: ${
      taken.map((t) => `${t.requests}: ${(t.rssKb / 1024).toFixed(1)} MiB`).join(", ")
    } (each snapshot inflates RSS; see --rss)`
  )
  for (let index = 1; index < taken.length; index++) {
    printGrowth(taken[index - 1]!.requests, taken[index - 1]!.heap, taken[index]!.requests, taken[index]!.heap)
  }
}

try {
  await (rssOnly ? rssCheckpoints() : heapGrowth())
} finally {
  agent.destroy()
  await dbdesk.stop()
  rmSync(dir, { recursive: true, force: true })
}
