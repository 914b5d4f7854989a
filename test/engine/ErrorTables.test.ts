import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { rawRequest, seedBooks } from "./EngineFixtures.ts"

/** Byte shapes of reference §0.1: (1) handler errors, unescaped with a space; (3) nlohmann, escaped. */
const spaced = (message: string) => `{"message": "${message}"}`
const compact = (message: string) => JSON.stringify({ message })

interface Row {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly status: number
  readonly expected: string
}

const row = (name: string, method: string, path: string, body: unknown, status: number, expected: string): Row =>
  body === undefined ? { name, method, path, status, expected } : { name, method, path, body, status, expected }

const typedSchema = {
  name: "typed",
  fields: [
    { name: "s", type: "string", optional: true },
    { name: "i32", type: "int32", optional: true },
    { name: "i64", type: "int64", optional: true },
    { name: "f", type: "float", optional: true },
    { name: "b", type: "bool", optional: true },
    { name: "g", type: "geopoint", optional: true },
    { name: "sa", type: "string[]", optional: true },
    { name: "ia", type: "int32[]", optional: true },
    { name: "la", type: "int64[]", optional: true },
    { name: "fa", type: "float[]", optional: true },
    { name: "ba", type: "bool[]", optional: true },
    { name: "ga", type: "geopoint[]", optional: true }
  ]
}
const rankedSchema = {
  name: "ranked",
  fields: [{ name: "score", type: "int32" }, { name: "t", type: "string", optional: true }],
  default_sorting_field: "score"
}

const collectionRows: ReadonlyArray<Row> = [
  row("bad JSON", "POST", "/collections", "{", 400, spaced("Bad JSON.")),
  row("name required", "POST", "/collections", { fields: [] }, 400, spaced("Parameter `name` is required.")),
  row(
    "name non-empty",
    "POST",
    "/collections",
    { name: "", fields: [] },
    400,
    spaced("Parameter `name` must be a non-empty string.")
  ),
  row("fields required", "POST", "/collections", { name: "x" }, 400, spaced("Parameter `fields` is required.")),
  row(
    "fields array of objects",
    "POST",
    "/collections",
    { name: "x", fields: [1] },
    400,
    spaced(
      "The `fields` value should be an array of objects containing `name`, `type` and optionally, `facet` properties."
    )
  ),
  row(
    "exists",
    "POST",
    "/collections",
    { name: "books", fields: [{ name: "t", type: "string" }] },
    409,
    spaced("A collection with name `books` already exists.")
  ),
  row(
    "field format",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a" }] },
    400,
    spaced(
      "Wrong format for `fields`. It should be an array of objects containing `name`, `type`, `optional` and `facet` properties."
    )
  ),
  row(
    "empty field name",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "", type: "string" }] },
    400,
    spaced("Field name cannot be empty.")
  ),
  row(
    "invalid type",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "text" }] },
    400,
    spaced("Field `a` has an invalid data type `text`, see docs for supported data types.")
  ),
  row(
    "duplicate names",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "string" }, { name: "a", type: "int32" }] },
    400,
    spaced("There are duplicate field names in the schema.")
  ),
  row(
    "dsf not found",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "int32" }], default_sorting_field: "b" },
    400,
    spaced("Default sorting field is defined as `b` but is not found in the schema.")
  ),
  row(
    "dsf not sortable",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "int32[]" }], default_sorting_field: "a" },
    400,
    spaced("Default sorting field `a` is not a sortable type.")
  ),
  row(
    "dsf optional",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "int32", optional: true }], default_sorting_field: "a" },
    400,
    spaced("Default sorting field `a` cannot be an optional field.")
  ),
  row(
    "dsf id",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "int32" }], default_sorting_field: "id" },
    400,
    spaced("Invalid `default_sorting_field` value: cannot be `id`.")
  ),
  row(
    "bool property",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "int32", sort: "yes" }] },
    400,
    spaced("The `sort` property of the field `a` should be a boolean.")
  ),
  row(
    "not sortable",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "string[]", sort: true }] },
    400,
    spaced("Field `a` cannot be a sortable field.")
  ),
  row(
    "object needs nested",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: "a", type: "object" }] },
    400,
    spaced(
      "Type `object` or `object[]` can be used only when nested fields are enabled by setting` enable_nested_fields` to true."
    )
  ),
  row(
    ".* optional",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: ".*", type: "auto", optional: false }] },
    400,
    spaced("Field `.*` must be an optional field.")
  ),
  row(
    ".* facet",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: ".*", type: "auto", facet: true }] },
    400,
    spaced("Field `.*` cannot be a facet field.")
  ),
  row(
    ".* index",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: ".*", type: "auto", index: false }] },
    400,
    spaced("Field `.*` must be an index field.")
  ),
  row(
    ".* type",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: ".*", type: "nope" }] },
    400,
    spaced("The `type` of field `.*` is invalid.")
  ),
  row(
    ".* only one",
    "POST",
    "/collections",
    { name: "x", fields: [{ name: ".*", type: "auto" }, { name: ".*", type: "auto" }] },
    400,
    spaced("There can be only one field named `.*`.")
  ),
  row(
    "offset not uint",
    "GET",
    "/collections?offset=x",
    undefined,
    400,
    spaced("Offset param should be unsigned integer.")
  ),
  row(
    "limit not uint",
    "GET",
    "/collections?limit=-1",
    undefined,
    400,
    spaced("Limit param should be unsigned integer.")
  ),
  row("offset too large", "GET", "/collections?offset=99", undefined, 400, spaced("Invalid offset param.")),
  row("get unknown", "GET", "/collections/nope", undefined, 404, spaced("Collection not found")),
  row("alter empty", "PATCH", "/collections/books", {}, 400, spaced("Alter payload is empty.")),
  row(
    "alter other keys",
    "PATCH",
    "/collections/books",
    { name: "x" },
    400,
    spaced("Only `fields` and `metadata` can be updated at the moment.")
  ),
  row("alter unknown", "PATCH", "/collections/nope", { fields: [] }, 404, spaced("Collection not found")),
  row("delete unknown", "DELETE", "/collections/nope", undefined, 404, spaced("No collection with name `nope` found."))
]

const write = (body: unknown) => row("", "POST", "/collections/typed/documents", body, 400, "")
const typeRows: ReadonlyArray<[string, unknown, number, string]> = [
  ["not an object", "[1]", 400, "Bad JSON: not a properly formed document."],
  ["id not a string", { id: 1 }, 400, "Document's `id` field should be a string."],
  ["id empty", { id: "" }, 400, "The `id` should not be empty."],
  ["S7-d int32 given a decimal", { i32: 1965.5 }, 400, "Field `i32` must be an int32."],
  ["S7-d int32 given 1965.0", "{\"i32\": 1965.0}", 400, "Field `i32` must be an int32."],
  ["int32 given a numeric string", { i32: "1965" }, 400, "Field `i32` must be an int32."],
  ["string", { s: 1 }, 400, "Field `s` must be a string."],
  ["int64", { i64: 1.5 }, 400, "Field `i64` must be an int64."],
  ["float", { f: "x" }, 400, "Field `f` must be a float."],
  ["bool", { b: "true" }, 400, "Field `b` must be a bool."],
  ["geopoint", { g: [1] }, 400, "Field `g` must be a geopoint."],
  ["string[]", { sa: [1] }, 400, "Field `sa` must be an array of string."],
  ["int32[]", { ia: ["a"] }, 400, "Field `ia` must be an array of int32."],
  ["int64[]", { la: [1.5] }, 400, "Field `la` must be an array of int64."],
  ["float[] (sic)", { fa: ["a"] }, 400, "Field `fa` must be a array of float."],
  ["bool[] (sic)", { ba: [1] }, 400, "Field `ba` must be a array of bool."],
  ["geopoint[]", { ga: [1] }, 400, "Field `ga` must be an array of geopoint."],
  ["scalar for array", { sa: "x" }, 400, "Field `sa` must be an array."],
  ["int32 too large", { i32: 3000000000 }, 400, "Field `i32` exceeds maximum value of int32."]
]
const documentRows: ReadonlyArray<Row> = [
  ...typeRows.map(([name, body, status, message]) => ({ ...write(body), name, status, expected: compact(message) })),
  row(
    "required field missing",
    "POST",
    "/collections/books/documents",
    { title: "x" },
    400,
    compact("Field `year` has been declared in the schema, but is not found in the document.")
  ),
  row(
    "dsf missing",
    "POST",
    "/collections/ranked/documents",
    { t: "x" },
    400,
    compact("Field `score` has been declared as a default sorting field, but is not found in the document.")
  ),
  row(
    "create on existing id",
    "POST",
    "/collections/books/documents",
    { id: "1", title: "x", year: 1 },
    409,
    compact("A document with id 1 already exists.")
  ),
  row(
    "update without id",
    "POST",
    "/collections/books/documents?action=update",
    { title: "x" },
    400,
    compact("For update, the `id` key must be provided.")
  ),
  row(
    "update on missing id",
    "POST",
    "/collections/books/documents?action=update",
    { id: "zz", title: "x" },
    404,
    compact("Could not find a document with id: zz")
  ),
  row(
    "bad action",
    "POST",
    "/collections/books/documents?action=replace",
    { title: "x" },
    400,
    compact("Parameter `action` must be a create|update|upsert.")
  ),
  row(
    "create in unknown collection",
    "POST",
    "/collections/nope/documents",
    { title: "x" },
    404,
    spaced("Collection not found")
  ),
  row(
    "get missing document",
    "GET",
    "/collections/books/documents/zz",
    undefined,
    404,
    spaced("Could not find a document with id: zz")
  ),
  row(
    "patch id mismatch",
    "PATCH",
    "/collections/books/documents/1",
    { id: "2" },
    400,
    spaced("The `id` of the resource does not match the `id` in the JSON body.")
  ),
  row(
    "patch missing",
    "PATCH",
    "/collections/books/documents/zz",
    { year: 1 },
    404,
    spaced("Could not find a document with id: zz")
  ),
  row(
    "S7-d patch type error",
    "PATCH",
    "/collections/books/documents/1",
    { year: "x" },
    400,
    spaced("Field `year` must be an int32.")
  ),
  row(
    "delete missing",
    "DELETE",
    "/collections/books/documents/zz",
    undefined,
    404,
    spaced("Could not find a document with id: zz")
  ),
  row(
    "delete missing ignored",
    "DELETE",
    "/collections/books/documents/zz?ignore_not_found=true",
    undefined,
    200,
    "{\"id\":\"zz\"}"
  ),
  row(
    "delete by filter needs filter_by",
    "DELETE",
    "/collections/books/documents",
    undefined,
    400,
    spaced("Parameter `filter_by` must be provided.")
  ),
  row(
    "delete batch_size",
    "DELETE",
    "/collections/books/documents?filter_by=year:1&batch_size=0",
    undefined,
    400,
    spaced("Parameter `batch_size` must be a positive integer.")
  ),
  row(
    "update by filter needs filter_by",
    "PATCH",
    "/collections/books/documents",
    { year: 1 },
    400,
    spaced("Parameter `filter_by` must be provided.")
  ),
  row(
    "import batch_size",
    "POST",
    "/collections/books/documents/import?batch_size=x",
    "",
    400,
    spaced("Parameter `batch_size` must be a positive integer.")
  ),
  row(
    "import action",
    "POST",
    "/collections/books/documents/import?action=x",
    "",
    400,
    spaced("Parameter `action` must be a create|update|upsert.")
  ),
  row(
    "import return_doc",
    "POST",
    "/collections/books/documents/import?return_doc=1",
    "",
    400,
    spaced("Parameter `return_doc` must be a true|false.")
  ),
  row(
    "import return_id",
    "POST",
    "/collections/books/documents/import?return_id=yes",
    "",
    400,
    spaced("Parameter `return_id` must be a true|false.")
  ),
  row(
    "import unknown collection",
    "POST",
    "/collections/nope/documents/import",
    "",
    404,
    spaced("Collection not found")
  )
]

const search = (query: string) => `/collections/books/documents/search?${query}`
const searchRows: ReadonlyArray<Row> = [
  row(
    "unknown collection",
    "GET",
    "/collections/nope/documents/search?q=*",
    undefined,
    404,
    compact("Collection not found")
  ),
  row("q required", "GET", search("per_page=1"), undefined, 400, compact("Parameter `q` is required.")),
  row(
    "unsigned per_page",
    "GET",
    search("q=*&per_page=x"),
    undefined,
    400,
    compact("Parameter `per_page` must be an unsigned integer.")
  ),
  row(
    "unsigned offset",
    "GET",
    search("q=*&offset=-1"),
    undefined,
    400,
    compact("Parameter `offset` must be an unsigned integer.")
  ),
  row(
    "sort malformed",
    "GET",
    search("q=*&sort_by=year"),
    undefined,
    400,
    compact("Parameter `sort_by` is malformed.")
  ),
  row(
    "S4.1-b four sort fields",
    "GET",
    search("q=*&sort_by=year:asc,rating:asc,in_print:asc,author:asc"),
    undefined,
    400,
    compact("Only upto 3 sort fields are allowed.")
  ),
  row("no query_by", "GET", search("q=dune"), undefined, 400, compact("No search fields specified for the query.")),
  row(
    "unknown query_by",
    "GET",
    search("q=dune&query_by=nope"),
    undefined,
    404,
    compact("Could not find a field named `nope` in the schema.")
  ),
  row(
    "non-string query_by",
    "GET",
    search("q=dune&query_by=year"),
    undefined,
    400,
    compact("Field `year` should be a string or a string array.")
  ),
  row(
    "S7-b per_page above 250",
    "GET",
    search("q=*&per_page=251"),
    undefined,
    422,
    compact("Only upto 250 hits can be fetched per page.")
  ),
  row(
    "S7-b limit above 250",
    "GET",
    search("q=*&limit=251"),
    undefined,
    422,
    compact("Only upto 250 hits can be fetched per page.")
  ),
  row(
    "S2.2-f string without sort flag",
    "GET",
    search("q=*&sort_by=title:asc"),
    undefined,
    404,
    compact("Could not find a field named `title` in the schema for sorting.")
  ),
  row(
    "S2.2-f id never sortable",
    "GET",
    search("q=*&sort_by=id:asc"),
    undefined,
    404,
    compact("Could not find a field named `id` in the schema for sorting.")
  ),
  row(
    "S2.2-f numeric array not sortable",
    "GET",
    "/collections/typed/documents/search?q=*&sort_by=ia:asc",
    undefined,
    404,
    compact("Could not find a field named `ia` in the schema for sorting.")
  ),
  row(
    "bad order",
    "GET",
    search("q=*&sort_by=year:up"),
    undefined,
    400,
    compact("Order for field` year` should be either ASC or DESC.")
  ),
  row(
    "query string too long",
    "GET",
    search(`q=*&filter_by=${"x".repeat(4000)}`),
    undefined,
    400,
    compact("Query string exceeds max allowed length of 4000. Use the /multi_search end-point for larger payloads.")
  ),
  row("multi bad JSON", "POST", "/multi_search", "{", 400, spaced("Bad JSON.")),
  row("multi missing searches", "POST", "/multi_search", { searches: {} }, 400, spaced("Missing `searches` array.")),
  row(
    "S4-b 51 searches",
    "POST",
    "/multi_search",
    { searches: Array.from({ length: 51 }, () => ({ collection: "books", q: "*" })) },
    400,
    spaced("Number of multi searches exceeds `limit_multi_searches` parameter.")
  ),
  row(
    "multi element not object",
    "POST",
    "/multi_search",
    { searches: [1] },
    400,
    spaced("The value of `searches` must be an array of objects.")
  ),
  row(
    "multi malformed parameter",
    "POST",
    "/multi_search",
    { searches: [{ collection: "books", q: ["*"] }] },
    400,
    spaced("One or more search parameters are malformed.")
  ),
  row(
    "multi float per_page",
    "POST",
    "/multi_search",
    "{\"searches\":[{\"collection\":\"books\",\"q\":\"*\",\"per_page\":250.0}]}",
    200,
    "{\"results\":[{\"code\":400,\"error\":\"Parameter `per_page` must be an unsigned integer.\"}]}"
  )
]

const filter = (expression: string) => search(`q=*&filter_by=${encodeURIComponent(expression)}`)
const filterRows: ReadonlyArray<Row> = [
  row("clause without colon", "GET", filter("year"), undefined, 400, compact("Could not parse the filter query.")),
  row(
    "single ampersand inside a clause is part of its value",
    "GET",
    filter("year:1 & year:2"),
    undefined,
    400,
    compact("Error with filter field `year`: Numerical field has an invalid comparator.")
  ),
  row(
    "single ampersand at token start",
    "GET",
    filter("(year:1) & (year:2)"),
    undefined,
    400,
    compact("Could not parse the filter filter_query.")
  ),
  row(
    "unbalanced open",
    "GET",
    filter("(year:1"),
    undefined,
    400,
    compact("Could not parse the filter query: unbalanced parentheses.")
  ),
  row(
    "unbalanced close",
    "GET",
    filter("year:1)"),
    undefined,
    400,
    compact("Could not parse the filter query: unbalanced parentheses.")
  ),
  row(
    "missing && operand",
    "GET",
    filter("year:1 &&"),
    undefined,
    400,
    compact("Could not parse the filter query: unbalanced `&&` operands.")
  ),
  row(
    "missing || operand",
    "GET",
    filter("|| year:1"),
    undefined,
    400,
    compact("Could not parse the filter query: unbalanced `||` operands.")
  ),
  row(
    "S7-c unknown field",
    "GET",
    filter("nope:1"),
    undefined,
    404,
    compact("Could not find a filter field named `nope` in the schema.")
  ),
  row(
    "invalid comparator",
    "GET",
    filter("year:abc"),
    undefined,
    400,
    compact("Error with filter field `year`: Numerical field has an invalid comparator.")
  ),
  row(
    "backticked number",
    "GET",
    filter("year:`1965`"),
    undefined,
    400,
    compact("Error with filter field `year`: Numerical field has an invalid comparator.")
  ),
  row(
    "S7-d not an int32",
    "GET",
    filter("year:19.5"),
    undefined,
    400,
    compact("Error with filter field `year`: Not an int32.")
  ),
  row(
    "int32 range",
    "GET",
    filter("year:3000000000"),
    undefined,
    400,
    compact("Error with filter field `year`: `3000000000` exceeds the range of an int32.")
  ),
  row(
    "not an int64",
    "GET",
    "/collections/typed/documents/search?q=*&filter_by=i64:>1.5",
    undefined,
    400,
    compact("Error with filter field `i64`: Not an int64.")
  ),
  row(
    "not a float",
    "GET",
    filter("rating:>abc"),
    undefined,
    400,
    compact("Error with filter field `rating`: Not a float.")
  ),
  row(
    "bool value",
    "GET",
    filter("in_print:yes"),
    undefined,
    400,
    compact("Value of filter field `in_print` must be `true` or `false`.")
  ),
  row(
    "bool list",
    "GET",
    filter("in_print:[true,yes]"),
    undefined,
    400,
    compact("Values of filter field `in_print`: must be `true` or `false`.")
  ),
  row(
    "empty value",
    "GET",
    filter("title:="),
    undefined,
    400,
    compact("Error with filter field `title`: Filter value cannot be empty.")
  ),
  row(
    "too many operations",
    "GET",
    filter(Array.from({ length: 51 }, () => "year:1").join("&&")),
    undefined,
    400,
    compact(
      "`filter_by` has too many operations. Maximum allowed: 100. Use `--filter-by-max-ops` command line argument to customize this value."
    )
  ),
  row(
    "unknown join collection",
    "GET",
    filter("$nope(id:1)"),
    undefined,
    400,
    compact("Referenced collection `nope` not found.")
  )
]

const keyRows: ReadonlyArray<Row> = [
  row("bad JSON", "POST", "/keys", "{", 400, spaced("Bad JSON.")),
  row(
    "description",
    "POST",
    "/keys",
    { actions: ["*"], collections: ["*"] },
    400,
    spaced("Could not find a `description` key.")
  ),
  row(
    "actions",
    "POST",
    "/keys",
    { description: "d", collections: ["*"] },
    400,
    spaced("Could not find a `actions` key.")
  ),
  row(
    "collections",
    "POST",
    "/keys",
    { description: "d", actions: ["*"] },
    400,
    spaced("Could not find a `collections` key.")
  ),
  row(
    "value type",
    "POST",
    "/keys",
    { description: "d", actions: ["*"], collections: ["*"], value: 1 },
    400,
    spaced("Key value must be a string.")
  ),
  row(
    "description type",
    "POST",
    "/keys",
    { description: 1, actions: ["*"], collections: ["*"] },
    400,
    spaced("Key description must be a string.")
  ),
  row(
    "actions format",
    "POST",
    "/keys",
    { description: "d", actions: [], collections: ["*"] },
    400,
    spaced("Wrong format for `actions`. It should be an array of string.")
  ),
  row(
    "collections format",
    "POST",
    "/keys",
    { description: "d", actions: ["*"], collections: [1] },
    400,
    spaced("Wrong format for `collections`. It should be an array of string.")
  ),
  row(
    "expires_at format",
    "POST",
    "/keys",
    { description: "d", actions: ["*"], collections: ["*"], expires_at: -1 },
    400,
    spaced("Wrong format for `expires_at`. It should be an unsigned integer.")
  ),
  row(
    "conflict with bootstrap",
    "POST",
    "/keys",
    { description: "d", actions: ["*"], collections: ["*"], value: "bootstrap-key" },
    409,
    spaced("API key generation conflict.")
  ),
  row("get unknown", "GET", "/keys/99", undefined, 404, spaced("Not found.")),
  row("delete unknown", "DELETE", "/keys/99", undefined, 404, spaced("Not found."))
]

const aliasRows: ReadonlyArray<Row> = [
  row("bad JSON", "PUT", "/aliases/a", "{", 400, spaced("Bad JSON.")),
  row("collection_name required", "PUT", "/aliases/a", {}, 400, spaced("Parameter `collection_name` is required.")),
  row(
    "name conflicts",
    "PUT",
    "/aliases/books",
    { collection_name: "typed" },
    500,
    spaced("Name `books` conflicts with an existing collection name.")
  ),
  row("get unknown", "GET", "/aliases/nope", undefined, 404, spaced("Collection not found")),
  row("delete unknown", "DELETE", "/aliases/nope", undefined, 404, spaced("Collection not found"))
]

const transportRows: ReadonlyArray<Row> = [
  row("unknown route", "GET", "/nope", undefined, 404, "{ \"message\": \"Not Found\"}"),
  row("HEAD has no route", "HEAD", "/collections", undefined, 404, ""),
  row("synonyms are not served", "GET", "/collections/books/synonyms", undefined, 404, "{ \"message\": \"Not Found\"}")
]

describe("engine: exact status and message for every implemented error-table row (v29)", () => {
  let engine: RunningEngine
  beforeAll(async () => {
    engine = await startEngine()
    await seedBooks(engine)
    await engine.createCollection(typedSchema)
    await engine.createCollection(rankedSchema)
  })
  afterAll(() => engine.stop())

  const tables = { collectionRows, documentRows, searchRows, filterRows, keyRows, aliasRows, transportRows }
  for (const [table, rows] of Object.entries(tables)) {
    for (const r of rows) {
      const title = /^S\d/.test(r.name) ? `${r.name} (${table})` : `engine: ${table}: ${r.name}`
      it(title, async () => {
        const answer = await rawRequest(engine, r.method, r.path, r.body)
        expect({ status: answer.status, body: answer.body }).toEqual({ status: r.status, body: r.expected })
      })
    }
  }

  it("engine: an unparseable document is `Bad JSON: <parser text>` in the escaped shape", async () => {
    const answer = await rawRequest(engine, "POST", "/collections/typed/documents", "{\"s\": ")
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({
      message: expect.stringMatching(/^Bad JSON: \[json\.exception\.parse_error\.101\] /)
    })
  })

  it("S5-b missing key: 401 with the exact transport body and JSON content type", async () => {
    const answer = await rawRequest(engine, "GET", "/collections", undefined, null)
    expect(answer).toEqual({
      status: 401,
      statusText: "Unauthorized",
      contentType: "application/json; charset=utf-8",
      body: "{\"message\": \"Forbidden - a valid `x-typesense-api-key` header must be sent.\"}"
    })
  })
})
