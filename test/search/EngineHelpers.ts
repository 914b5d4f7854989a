import { Effect } from "effect"
import { decodeSearchConnectionForm } from "../../src/domain/SearchConnection.ts"
import type { SearchSslMode } from "../../src/domain/SearchConnection.ts"
import { makeSearchClient } from "../../src/search/SearchClient.ts"
import type { RunningEngine } from "../support/engine/index.ts"

export interface ClientOverrides {
  readonly apiKey?: string
  readonly sslMode?: SearchSslMode
  readonly skipTlsVerification?: boolean
}

/** A client for the test engine over its own dispatcher, closed with the test's scope. */
export const clientFor = (engine: RunningEngine, overrides: ClientOverrides = {}) =>
  decodeSearchConnectionForm({
    host: engine.host,
    port: engine.port,
    apiKey: overrides.apiKey ?? engine.apiKey,
    sslMode: overrides.sslMode ?? (engine.url.startsWith("https") ? "Required" : "Disabled"),
    skipTlsVerification: overrides.skipTlsVerification ?? false
  }).pipe(Effect.orDie, Effect.flatMap(makeSearchClient))

export const books = {
  name: "books",
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

export const bookDocuments = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: String(index),
    title: `Book ${index}`,
    year: 1900 + (index % 120),
    rating: (index % 50) / 10,
    pages: 100 + index,
    in_stock: index % 2 === 0,
    tags: index % 3 === 0 ? ["classic"] : ["new", "cyber"],
    author: `Author ${index % 7}`
  }))

/** The searches of a recorded `POST /multi_search` request. */
export const searchesOf = (body: string): ReadonlyArray<Record<string, unknown>> =>
  (JSON.parse(body) as { searches: ReadonlyArray<Record<string, unknown>> }).searches
