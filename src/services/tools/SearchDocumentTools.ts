import { Effect, Schema } from "effect"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { requireName } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool, described } from "./Tool.ts"

const optionalText = (description: string) => Schema.optionalWith(described(Schema.String, description), { exact: true })
const optionalNumber = (description: string) => Schema.optionalWith(described(Schema.Number, description), { exact: true })

const wholeNumberIn = (value: number | undefined, name: string, min: number, max: number) =>
  value === undefined || (Number.isInteger(value) && value >= min && value <= max)
    ? Effect.void
    : Effect.fail(toolFailure("invalid_argument", `${name} must be a whole number from ${min} to ${max}`))

/** `search_documents` (product-decisions §3): one text search on a collection of a search-engine connection. */
export const SearchDocumentTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const routes = yield* SearchToolRoutes

  const searchDocuments = defineTool({
    name: "search_documents",
    title: "Search documents",
    description: "Runs a text search on a collection of a search-engine connection and returns the matching documents. filter_by and sort_by use the engine's syntax; call describe_table first to see which fields are sortable.",
    arguments: Schema.Struct({
      connection_id: described(Schema.String, "Id of a search-engine connection, from list_connections"),
      collection: described(Schema.String, "Name of the collection, from list_tables"),
      q: described(Schema.String, "Text to search for; * matches every document"),
      query_by: optionalText("Comma-separated fields to search in (needed unless q is *)"),
      filter_by: optionalText("Engine filter expression, e.g. year:>2000 && in_stock:true"),
      sort_by: optionalText("Engine sort expression, e.g. year:desc (at most three fields, sortable ones only)"),
      per_page: optionalNumber("Documents per page (0–250, default 10)"),
      page: optionalNumber("Page number, from 1"),
      infix: optionalText("Infix mode per query_by field: off, always or fallback (the field must have infix: true)")
    }),
    scopes: [],
    readOnly: true,
    prepare: (args, context) =>
      Effect.gen(function*() {
        yield* requireName(args.collection, "collection")
        yield* wholeNumberIn(args.per_page, "per_page", 0, 250)
        yield* wholeNumberIn(args.page, "page", 1, 1_000_000)
        const connection = yield* access.resolve(context.principal, args.connection_id, context.clientInfo?.name)
        if (connection.type !== "search") {
          return yield* toolFailure("unsupported", `'${connection.name}' is a ${connection.type} connection; search_documents works on search-engine connections (use browse_table or execute_query)`)
        }
        const { connection_id: _id, ...request } = args
        return routes.search(connection, request, context)
      })
  })

  return [searchDocuments] as const
})
