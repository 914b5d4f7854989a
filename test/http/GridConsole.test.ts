import { Context, Effect, FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { Connections } from "../../src/services/Connections.ts"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

// D-87: every grid view is an exact console request. For generated filter / sort / page states, the grid's
// rows (the Data view's API) equal the rows the console gives for the request "Open in console" hands over — on the
// sample SQLite database and on the Typesense-compatible test engine.
let server: TestServer
let engine: RunningEngine
let origin: string
let cookie: string
let sampleId: string
let searchId: string

beforeAll(async () => {
  engine = await startEngine({ version: 29 })
  await engine.createCollection(books)
  await engine.importDocuments("books", bookDocuments(700))
  server = await startTestServer({ settings: { ui: { port: 0 } } })
  const connections = Context.get(server.context, Connections)
  sampleId = (await Effect.runPromise(connections.list))[0]!.id
  searchId = (await Effect.runPromise(connections.add({
    name: "Books",
    type: "search",
    host: engine.host,
    port: engine.port,
    apiKey: engine.apiKey,
    externalAccess: "readOnly",
    aiPolicy: "alwaysAllow",
    confirmQueries: "writes",
    sslMode: "Disabled",
    skipTlsVerification: false
  } as never))).id
  const ui = Context.get(server.context, UiAddress)
  origin = ui.origin
  cookie = (await fetch(ui.launchUrl, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await engine?.stop()
})

const post = async (path: string, body: unknown): Promise<{ status: number; json: any }> => {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, json: await response.json() }
}

type Request = {
  filters: Array<{ column: string; operator: string; value?: string; secondValue?: string }>
  logic: "and" | "or"
  sort: Array<{ column: string; direction: "asc" | "desc" }>
  offset: number
  limit: number
}
const state = (columns: ReadonlyArray<string>, operators: ReadonlyArray<string>, values: ReadonlyArray<string>) =>
  FastCheck.record({
    filters: FastCheck.array(
      FastCheck.record({
        column: FastCheck.constantFrom(...columns),
        operator: FastCheck.constantFrom(...operators),
        value: FastCheck.constantFrom(...values),
        secondValue: FastCheck.constantFrom(...values)
      }),
      { maxLength: 3 }
    ),
    logic: FastCheck.constantFrom("and" as const, "or" as const),
    sort: FastCheck.array(
      FastCheck.record({
        column: FastCheck.constantFrom(...columns),
        direction: FastCheck.constantFrom("asc" as const, "desc" as const)
      }),
      { maxLength: 2 }
    ),
    offset: FastCheck.constantFrom(0, 1, 17, 250, 600, 1195),
    limit: FastCheck.constantFrom(1, 9, 250, 251, 1000)
  })

/** The grid's rows and the console's rows for one state; a state the grid refuses must be refused for the console too. */
const bothPaths = async (connectionId: string, table: string, request: Request) => {
  const payload = { ...request, caseSensitive: false }
  const grid = await post(`/api/connections/${connectionId}/tables/${table}/rows`, payload)
  const opened = await post(`/api/connections/${connectionId}/tables/${table}/console-request`, payload)
  if (grid.status !== 200) {
    // refused while building (a bad filter): the same refusal; refused by the engine: running the request is refused too
    if (opened.status !== 200) expect(opened.json, "the console request of a state the grid refuses").toEqual(grid.json)
    else {
      const ran = await post(`/api/connections/${connectionId}/console`, { text: opened.json.text, confirmed: false })
      const said = ran.json._tag === "Json"
        ? (JSON.parse(ran.json.text).results ?? []).map((result: { error?: string }) => result.error ?? "").join("\n")
        : ran.json.message
      expect(said, `running ${opened.json.text} gave what the grid refused`).toContain(grid.json.message)
    }
    return undefined
  }
  expect(opened.status, JSON.stringify(opened.json)).toBe(200)
  const consoled = await post(`/api/connections/${connectionId}/console`, { text: opened.json.text, confirmed: false })
  expect(consoled.status, JSON.stringify(consoled.json)).toBe(200)
  return { grid: grid.json, text: opened.json.text as string, console: consoled.json }
}

describe("D-87: a grid page and its console request give the same rows", () => {
  it(
    "property: on the sample SQLite database, the SELECT … WHERE … ORDER BY … LIMIT … OFFSET … returns the grid's rows",
    async () => {
      let compared = 0
      await FastCheck.assert(
        FastCheck.asyncProperty(
          FastCheck.constantFrom("products", "orders"),
          state(
            ["id", "category", "name", "price", "stock", "status", "total", "order_date"],
            [
              "=",
              "!=",
              ">",
              ">=",
              "<",
              "<=",
              "between",
              "in",
              "not_in",
              "contains",
              "not_contains",
              "starts_with",
              "is_null",
              "is_not_null"
            ],
            ["Office", "Pro", "shipped", "50", "2024-06", "a", "it's", "100%", "_", "\\", "pending,shipped", ""]
          ),
          async (table, request) => {
            const columns = table === "products"
              ? ["id", "category", "name", "price", "stock"]
              : ["id", "status", "total", "order_date"]
            const shaped = {
              ...request,
              filters: request.filters.filter((f) => columns.includes(f.column)),
              sort: request.sort.filter((s) => columns.includes(s.column))
            }
            const paths = await bothPaths(sampleId, table, shaped)
            if (paths === undefined) return
            expect(paths.text).toMatch(
              new RegExp(
                `^SELECT \\* FROM "${table}"( WHERE .+)?( ORDER BY .+)? LIMIT ${request.limit} OFFSET ${request.offset}$`
              )
            )
            expect(paths.console._tag).toBe("Grid")
            expect(paths.console.columns).toEqual(paths.grid.columns.map((column: { name: string }) => column.name))
            expect(paths.console.rows, paths.text).toEqual(paths.grid.rows)
            compared++
          }
        ),
        { numRuns: 60 }
      )
      expect(compared).toBeGreaterThan(12)
    },
    120_000
  )

  it(
    "property: on the test engine, the POST /multi_search body returns the grid's documents in the grid's order",
    async () => {
      let compared = 0
      await FastCheck.assert(
        FastCheck.asyncProperty(
          state(
            ["title", "year", "rating", "pages", "in_stock", "author", "tags"],
            ["=", "!=", ">", ">=", "<", "<=", "between", "in", "not_in", "contains", "starts_with"],
            ["1950", "2.5", "120", "true", "Author 3", "Book 1", "classic", "1900,1910", "x"]
          ),
          async (request) => {
            const paths = await bothPaths(searchId, "books", request)
            if (paths === undefined) return
            const sent = JSON.parse(paths.text.slice(paths.text.indexOf("\n") + 1)) as {
              searches: Array<Record<string, unknown>>
            }
            expect(paths.text.split("\n")[0]).toBe("POST /multi_search")
            expect(sent.searches.map((search) => search["limit"])).toEqual(
              Array.from(
                { length: Math.ceil(request.limit / 250) },
                (_, index) => Math.min(250, request.limit - index * 250)
              )
            )
            const columns: Array<string> = paths.grid.columns.map((column: { name: string }) => column.name)
            const gridIds = paths.grid.rows.map((row: Array<unknown>) => row[columns.indexOf("id")])
            const gridTitles = paths.grid.rows.map((row: Array<unknown>) => row[columns.indexOf("title")])
            const documents: Array<Record<string, unknown>> = paths.console._tag === "Grid"
              ? paths.console.rows.map((row: Array<unknown>) =>
                Object.fromEntries(paths.console.columns.map((name: string, index: number) => [name, row[index]]))
              )
              : JSON.parse(paths.console.text).results.flatMap((
                result: { hits: Array<{ document: Record<string, unknown> }> }
              ) => result.hits.map((hit) => hit.document))
            expect(documents.map((document) => document["id"]), paths.text).toEqual(gridIds)
            expect(documents.map((document) => document["title"])).toEqual(gridTitles)
            compared++
          }
        ),
        { numRuns: 100 }
      )
      expect(compared).toBeGreaterThan(12)
    },
    120_000
  )
})
