import { Client } from "typesense"
import type { RunningEngine } from "../support/engine/index.ts"

export interface RawAnswer {
  readonly status: number
  readonly statusText: string
  readonly contentType: string
  readonly body: string
}

/** One HTTP request as the wire sees it (bodies sent verbatim when given as a string). */
export const rawRequest = async (
  engine: RunningEngine,
  method: string,
  path: string,
  body?: unknown,
  apiKey: string | null = engine.apiKey
): Promise<RawAnswer> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (apiKey !== null) headers["x-typesense-api-key"] = apiKey
  const response = await fetch(`${engine.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  return {
    status: response.status,
    statusText: response.statusText,
    contentType: response.headers.get("content-type") ?? "",
    body: await response.text()
  }
}

export const messageOf = (answer: RawAnswer): unknown => (JSON.parse(answer.body) as { message?: unknown }).message

/** The official client, pointed at the engine, without retries (5xx would otherwise be retried). */
export const clientFor = (engine: RunningEngine, apiKey: string = engine.apiKey): Client =>
  new Client({
    nodes: [{ host: engine.host, port: engine.port, protocol: engine.url.startsWith("https") ? "https" : "http" }],
    apiKey,
    numRetries: 0,
    retryIntervalSeconds: 0.01,
    connectionTimeoutSeconds: 5,
    logLevel: "silent"
  })

export const booksSchema = {
  name: "books",
  fields: [
    { name: "title", type: "string" },
    { name: "year", type: "int32" },
    { name: "rating", type: "float", optional: true },
    { name: "tags", type: "string[]", optional: true },
    { name: "in_print", type: "bool", optional: true },
    { name: "author", type: "string", sort: true, optional: true }
  ]
}

export const books = [
  {
    id: "1",
    title: "The Hobbit",
    year: 1937,
    rating: 4.7,
    tags: ["fantasy", "classic"],
    in_print: true,
    author: "Tolkien"
  },
  { id: "2", title: "Dune", year: 1965, rating: 4.5, tags: ["sci fi", "classic"], in_print: true, author: "Herbert" },
  { id: "3", title: "Neuromancer", year: 1984, tags: ["cyber", "sci fi"], in_print: false, author: "Gibson" },
  { id: "4", title: "Dune Messiah", year: 1969, rating: 3.9, author: "Herbert" },
  { id: "5", title: "Snow Crash", year: 1992, rating: 4.0, tags: ["cyber"] }
]

export const seedBooks = async (engine: RunningEngine): Promise<void> => {
  await engine.createCollection(booksSchema)
  await engine.importDocuments("books", books)
}
