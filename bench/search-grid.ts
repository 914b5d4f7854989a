/**
 * D-57, run in its own process by `bench/run.ts`: `tsx bench/search-grid.ts <docs> <out.json>`.
 * Starts the Typesense-compatible test engine in this process, seeds `<docs>` documents through `importDocuments`,
 * then reads 1,000 and all `<docs>` documents in the grid's 1,000-row pages two ways:
 *  - the grid path: `readPage` (one `multi_search` of four 250-hit searches per page) over dbdesk's search client;
 *  - the official `typesense` client reading the same pages one search at a time (`documents().search`, 250 per page).
 * Requests are counted on the engine side (every HTTP request it received during the read).
 */
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { Client } from "typesense"
import { decodeSearchConnectionForm } from "../src/domain/SearchConnection.ts"
import { describeCollection, readPage } from "../src/search/SearchBrowse.ts"
import { makeSearchClient } from "../src/search/SearchClient.ts"
import { startEngine, type RunningEngine } from "../test/support/engine/index.ts"

export interface GridRead {
  readonly documents: number
  readonly path: "grid readPage" | "typesense client"
  readonly requests: number
  readonly searches: number
  readonly ms: number
  readonly rowsRead: number
}

export interface GridResult {
  readonly seededDocuments: number
  readonly seedMs: number
  readonly reads: ReadonlyArray<GridRead>
}

const PAGE = 1000
const PER_SEARCH = 250
const COLLECTION = "bench_docs"

const schema = {
  name: COLLECTION,
  fields: [
    { name: "title", type: "string" },
    { name: "year", type: "int32" },
    { name: "rating", type: "float" },
    { name: "pages", type: "int32" },
    { name: "in_stock", type: "bool" },
    { name: "tags", type: "string[]", optional: true },
    { name: "author", type: "string", sort: true, optional: true }
  ]
}

const documents = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => {
    const index = from + k
    return {
      id: String(index),
      title: `Document ${index}`,
      year: 1900 + (index % 120),
      rating: (index % 50) / 10,
      pages: 100 + (index % 900),
      in_stock: index % 2 === 0,
      tags: index % 3 === 0 ? ["classic"] : ["new", "cyber"],
      author: `Author ${index % 7}`
    }
  })

const searchesIn = (engine: RunningEngine) =>
  engine.requests.reduce((sum, request) => {
    if (request.path !== "/multi_search") return sum + 1
    try {
      return sum + (JSON.parse(request.body) as { searches: ReadonlyArray<unknown> }).searches.length
    } catch {
      return sum + 1
    }
  }, 0)

const gridRead = (engine: RunningEngine, total: number) =>
  Effect.scoped(Effect.gen(function*() {
    const settings = yield* Effect.orDie(
      decodeSearchConnectionForm({ host: engine.host, port: engine.port, apiKey: engine.apiKey, sslMode: "Disabled" })
    )
    const client = yield* makeSearchClient(settings)
    // The grid loads the structure once when the collection opens; that request is outside the timed read.
    const { columns } = yield* describeCollection(client, COLLECTION)
    engine.requests.length = 0
    const started = performance.now()
    let rows = 0
    for (let offset = 0; offset < total; offset += PAGE) {
      const page = yield* readPage(client, {
        collection: COLLECTION,
        columns,
        offset,
        limit: Math.min(PAGE, total - offset)
      })
      rows += page.rows.length
    }
    const ms = performance.now() - started
    const read: GridRead = {
      documents: total,
      path: "grid readPage",
      requests: engine.requests.length,
      searches: searchesIn(engine),
      ms,
      rowsRead: rows
    }
    return read
  }))

const clientRead = async (engine: RunningEngine, total: number): Promise<GridRead> => {
  const client = new Client({
    nodes: [{ host: engine.host, port: engine.port, protocol: "http" }],
    apiKey: engine.apiKey,
    numRetries: 0,
    connectionTimeoutSeconds: 60,
    logLevel: "error"
  })
  engine.requests.length = 0
  const started = performance.now()
  let rows = 0
  for (let offset = 0; offset < total; offset += PAGE) {
    // The same 1,000-row page, one 250-hit search at a time (page numbers are 1-based).
    for (let start = offset; start < Math.min(offset + PAGE, total); start += PER_SEARCH) {
      const result = await client.collections(COLLECTION).documents().search({
        q: "*",
        page: start / PER_SEARCH + 1,
        per_page: PER_SEARCH
      })
      rows += result.hits?.length ?? 0
    }
  }
  const ms = performance.now() - started
  return {
    documents: total,
    path: "typesense client",
    requests: engine.requests.length,
    searches: engine.requests.length,
    ms,
    rowsRead: rows
  }
}

const main = async () => {
  const [countText, outPath] = process.argv.slice(2)
  const count = Number(countText)
  if (!Number.isInteger(count) || count < PAGE || outPath === undefined) {
    throw new Error("usage: search-grid.ts <docs ≥ 1000> <out.json>")
  }
  const engine = await startEngine({ version: 29 })
  try {
    const seedStarted = performance.now()
    await engine.createCollection(schema)
    for (let from = 0; from < count; from += 10_000) {
      await engine.importDocuments(COLLECTION, documents(from, Math.min(count, from + 10_000)))
    }
    const seedMs = performance.now() - seedStarted
    process.stderr.write(`  seeded ${count} documents in ${(seedMs / 1000).toFixed(1)} s\n`)
    const reads: Array<GridRead> = []
    for (const total of [PAGE, count]) {
      // Alternate which path goes first per size, so a warm engine does not favour one of them.
      const first = total === PAGE ? "grid" : "client"
      const order = first === "grid" ? ["grid", "client"] : ["client", "grid"]
      for (const path of order) {
        const read = path === "grid"
          ? await Effect.runPromise(gridRead(engine, total))
          : await clientRead(engine, total)
        if (read.rowsRead !== total) throw new Error(`${read.path} read ${read.rowsRead} of ${total} documents`)
        reads.push(read)
        process.stderr.write(
          `  ${read.path.padEnd(16)} ${
            String(total).padStart(7)
          } docs: ${read.requests} requests (${read.searches} searches), ${read.ms.toFixed(0)} ms\n`
        )
      }
    }
    const result: GridResult = { seededDocuments: count, seedMs, reads }
    writeFileSync(outPath, JSON.stringify(result))
  } finally {
    await engine.stop()
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(
    `search grid bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`
  )
  process.exit(1)
})
