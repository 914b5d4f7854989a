import { assert, describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import type { ConsoleRequest } from "../../src/search/ConsoleRequest.ts"
import {
  classifyConsoleRequest,
  consoleMethods,
  formatConsoleRequest,
  parseConsoleInput
} from "../../src/search/ConsoleRequest.ts"
import { renderConsoleResponse } from "../../src/search/ConsoleRender.ts"
import { flattenDocument } from "../../src/search/Flatten.ts"

const parsed = (input: string) => {
  const result = parseConsoleInput(input)
  assert.isTrue(Either.isRight(result), Either.isLeft(result) ? result.left.message : "")
  return Either.getOrThrow(result)
}
const refused = (input: string) => {
  const result = parseConsoleInput(input)
  assert.isTrue(Either.isLeft(result), `accepted: ${input}`)
  return Either.isLeft(result) ? result.left.message : ""
}

describe("request console input", () => {
  it("S4.3-a a method, a path and an optional JSON body", () => {
    expect(parsed("get /collections")).toEqual({ method: "GET", path: "/collections", body: undefined })
    expect(parsed("GET collections/books/documents/search?q=*&per_page=10")).toEqual({
      method: "GET",
      path: "/collections/books/documents/search?q=*&per_page=10",
      body: undefined
    })
    expect(parsed("POST /multi_search\n{\"searches\": [{\"collection\": \"books\", \"q\": \"*\"}]}").body).toEqual({
      _tag: "Json",
      value: { searches: [{ collection: "books", q: "*" }] }
    })
    expect(parsed("POST /collections/books/documents/import\n{\"id\":\"1\"}\n{\"id\":\"2\"}").body).toEqual({
      _tag: "JsonLines",
      text: "{\"id\":\"1\"}\n{\"id\":\"2\"}"
    })
    expect(parsed("GET /collections/books/documents/search?q=a b").path).toBe(
      "/collections/books/documents/search?q=a b"
    )
    expect(refused("POST /collections\n{not json")).toMatch(/^The body must be JSON/)
    expect(refused("")).toMatch(/^Enter a request like: GET \/collections/)
  })

  it("S4.3-e S7-f SQL-like input is refused", () => {
    expect(refused("DELETE FROM books")).toMatch(/looks like SQL/)
    expect(refused("SELECT * FROM books")).toMatch(/looks like SQL/)
    expect(refused("update books set a = 1")).toMatch(/looks like SQL/)
    expect(refused("FETCH /collections")).toMatch(/Enter a request like/)
  })

  it("paths that would leave the connection's origin are refused", () => {
    for (
      const input of [
        "GET //evil.example/x",
        "GET http://evil.example/collections",
        "GET https:/evil.example",
        "GET /collections/../keys",
        "GET /./keys",
        "GET /\\evil.example/x"
      ]
    ) expect(refused(input)).toMatch(/must stay on this connection's server/)
  })

  it("console tiers follow D-22", () => {
    expect(classifyConsoleRequest("GET", "/collections")).toBe("safe")
    expect(classifyConsoleRequest("HEAD", "/health")).toBe("safe")
    expect(classifyConsoleRequest("POST", "/multi_search?x=1")).toBe("safe")
    expect(classifyConsoleRequest("POST", "/collections/books/documents/search")).toBe("safe")
    expect(classifyConsoleRequest("POST", "/collections")).toBe("write")
    expect(classifyConsoleRequest("POST", "/collections/books/documents/import")).toBe("write")
    expect(classifyConsoleRequest("PUT", "/aliases/a")).toBe("write")
    expect(classifyConsoleRequest("PATCH", "/collections/books")).toBe("write")
    expect(classifyConsoleRequest("DELETE", "/collections/books")).toBe("destructive")
    expect(classifyConsoleRequest("delete", "/multi_search")).toBe("destructive")
  })

  const segment = FastCheck.stringMatching(/^[A-Za-z0-9_%.-]{1,12}$/).filter((s) => s !== "." && s !== "..")
  const request = FastCheck.record({
    method: FastCheck.constantFrom(...consoleMethods),
    segments: FastCheck.array(segment, { maxLength: 4 }),
    query: FastCheck.option(FastCheck.stringMatching(/^[a-z_]{1,8}=([A-Za-z0-9*: ]{0,10}[A-Za-z0-9*])?$/), {
      nil: undefined
    }),
    body: FastCheck.option(FastCheck.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown), {
      nil: undefined
    })
  }).map(({ method, segments, query, body }): ConsoleRequest => ({
    method,
    path: `/${segments.join("/")}${query === undefined ? "" : `?${query}`}`,
    body: body === undefined ? undefined : { _tag: "Json", value: body }
  }))

  it.prop("S4.3-a formatting then parsing a console request gives it back", [request], ([req]) => {
    expect(parsed(formatConsoleRequest(req))).toEqual(req)
  })
})

describe("request console rendering", () => {
  it("S4.3-b hits, and a multi_search of one search, render as a grid of documents", () => {
    const hits = JSON.stringify({
      found: 2,
      hits: [{ document: { title: "b", id: "2", Year: 1 } }, { document: { id: "1", meta: { pages: 3 } } }]
    })
    const grid = {
      _tag: "Grid",
      columns: ["id", "meta.pages", "title", "Year"],
      rows: [["2", null, "b", 1], ["1", 3, null, null]]
    }
    expect(renderConsoleResponse(hits, "/collections/books/documents/search")).toEqual(grid)
    expect(renderConsoleResponse(JSON.stringify({ results: [JSON.parse(hits)] }), "/multi_search")).toEqual(grid)
  })

  it("S4.3-c arrays of objects and JSON lines render as a grid; export always does", () => {
    expect(renderConsoleResponse("[{\"name\":\"books\",\"num_documents\":3}]", "/collections")).toEqual({
      _tag: "Grid",
      columns: ["name", "num_documents"],
      rows: [["books", 3]]
    })
    expect(
      renderConsoleResponse(
        "{\"success\":true}\n{\"success\":false,\"error\":\"x\"}",
        "/collections/b/documents/import"
      )
    )
      .toEqual({ _tag: "Grid", columns: ["error", "success"], rows: [[null, true], ["x", false]] })
    expect(renderConsoleResponse("{\"id\":\"1\",\"tags\":[\"a\"]}", "/collections/b/documents/export")).toEqual({
      _tag: "Grid",
      columns: ["id", "tags"],
      rows: [["1", "[\"a\"]"]]
    })
    expect(renderConsoleResponse("", "/collections/b/documents/export")).toEqual({
      _tag: "Grid",
      columns: ["response"],
      rows: []
    })
  })

  it("S4.3-d anything else, a batch of several searches included, is one pretty JSON cell", () => {
    const batch = { results: [{ hits: [] }, { hits: [] }] }
    expect(renderConsoleResponse(JSON.stringify(batch), "/multi_search")).toEqual({
      _tag: "Json",
      text: JSON.stringify(batch, null, 2)
    })
    expect(renderConsoleResponse("{\"version\":\"29.0\",\"state\":1}", "/debug")).toEqual({
      _tag: "Json",
      text: "{\n  \"state\": 1,\n  \"version\": \"29.0\"\n}"
    })
    expect(renderConsoleResponse("{\"id\":\"1\"}", "/collections/b/documents/1")._tag).toBe("Json")
    expect(renderConsoleResponse("[1,2]", "/x")._tag).toBe("Json")
  })

  const flatDocument = FastCheck.dictionary(
    FastCheck.stringMatching(/^[a-z][a-z0-9_]{0,5}$/),
    FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.boolean()),
    { minKeys: 1, maxKeys: 5 }
  )

  it.prop("S4.3-b S4.3-c a rendered grid holds every document's values, whatever the response shape", [
    FastCheck.array(flatDocument, { minLength: 1, maxLength: 5 }),
    FastCheck.constantFrom("hits", "single", "array", "export")
  ], ([documents, shape]) => {
    const body = shape === "hits"
      ? JSON.stringify({ hits: documents.map((document) => ({ document })) })
      : shape === "single"
      ? JSON.stringify({ results: [{ hits: documents.map((document) => ({ document })) }] })
      : shape === "array"
      ? JSON.stringify(documents)
      : documents.map((d) => JSON.stringify(d)).join("\n")
    const output = renderConsoleResponse(body, "/collections/c/documents/export")
    assert.strictEqual(output._tag, "Grid")
    if (output._tag !== "Grid") return
    const back = output.rows.map((row) =>
      Object.fromEntries(row.flatMap((cell, i) => (cell === null ? [] : [[output.columns[i], cell]])))
    )
    expect(back).toEqual(documents.map(flattenDocument))
  })
})
