import { Effect, Schema } from "effect"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { requireName } from "./SchemaTools.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { defineTool } from "./Tool.ts"
import { connectionId, integer, text } from "./ToolArguments.ts"

const optionalText = (description?: string) => Schema.optionalWith(text(description), { exact: true })
const optionalNumber = (description?: string) => Schema.optionalWith(integer(description), { exact: true })

const wholeNumberIn = (value: number | undefined, name: string, min: number, max: number) =>
  value === undefined || (Number.isInteger(value) && value >= min && value <= max)
    ? Effect.void
    : Effect.fail(toolFailure("invalid_argument", `${name} must be a whole number from ${min} to ${max}`))

/** `search_documents` (D-21): one text search on a collection of a search-engine connection. */
export const SearchDocumentTools = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const routes = yield* SearchToolRoutes

  const searchDocuments = defineTool({
    name: "search_documents",
    description: "Searches a collection. Returns found, hits[].",
    arguments: Schema.Struct({
      connection_id: connectionId,
      collection: text(),
      q: text("* for all"),
      query_by: optionalText("field,field"),
      filter_by: optionalText("year:>2000"),
      sort_by: optionalText("year:desc"),
      per_page: optionalNumber("0-250"),
      page: optionalNumber(),
      infix: optionalText("off|always|fallback")
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
          return yield* toolFailure(
            "unsupported",
            `'${connection.name}' is a ${connection.type} connection; search_documents works on search-engine connections (use browse_table or execute_query)`
          )
        }
        const { connection_id: _id, ...request } = args
        return routes.search(connection, request, context)
      })
  })

  return [searchDocuments] as const
})
