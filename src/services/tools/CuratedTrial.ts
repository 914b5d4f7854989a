import { Effect, Either } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import { type CuratedToolDefinition, decodeCuratedArguments } from "../../domain/CuratedTool.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import { Drivers } from "../Drivers.ts"
import { type PolicyFacts, sqlVerdict, dialectOf } from "../policy/StatementPolicy.ts"
import { bindCurated } from "./CuratedTools.ts"

/** What a trial of a curated tool found: its rows, or that it changes data and so was not run. */
export type CuratedTrial = { readonly kind: "rows"; readonly result: ResultSet } | { readonly kind: "changes_data" }

/**
 * `dbdesk tools test` and the MCP panel's Test: the arguments checked as a client's would be, the statement
 * classified, and a tool that reads run once with them bound, on a read-only handle (the user's own view: no AI
 * guard). A tool that changes data is not run. A problem is a sentence for the user.
 */
export const trialRun = (
  definition: CuratedToolDefinition,
  connection: Connection,
  raw: Readonly<Record<string, unknown>>
) =>
  Effect.gen(function*() {
    if (definition.sql === undefined || connection.type === "search") {
      return yield* Effect.fail(`${definition.name} searches a search-engine collection; only SQL tools are tried here`)
    }
    const values = decodeCuratedArguments(definition, raw)
    if (Either.isLeft(values)) return yield* Effect.fail(values.left.replace(" The input schema is in tools/list.", ""))
    const bound = bindCurated(definition, connection, values.right)
    if (Either.isLeft(bound)) return yield* Effect.fail(bound.left)
    const facts: PolicyFacts = {}
    const verdict = sqlVerdict(bound.right.sql, dialectOf(connection), facts)
    if (verdict.kind === "refuse") return yield* Effect.fail(verdict.error.message)
    if ((facts.tier ?? facts.classification?.tier) !== "safe") {
      return { kind: "changes_data" } satisfies CuratedTrial
    }
    const drivers = yield* Drivers
    const driver = yield* drivers.forConnection(connection)
    const result = yield* driver.execute(bound.right.sql, {
      maxRows: 20,
      timeoutSeconds: 30,
      access: "readonly",
      params: bound.right.params
    })
    return { kind: "rows", result } satisfies CuratedTrial
  })

/**
 * What the statement policy makes of a tool's statement when it is saved (the parameters as bound values; classified
 * again at each call): "safe" for a read, "write" for a change, or why it cannot be saved. A curated tool runs under
 * execute_query's policy, which sends DROP and TRUNCATE to the confirmation tool, so those are refused here.
 */
export const savedTier = (
  definition: CuratedToolDefinition,
  connection: Connection
): Either.Either<"safe" | "write", string> => {
  if (connection.type === "search") {
    return definition.search === undefined
      ? Either.left(`${connection.name} is a search connection; a curated tool on it searches a collection`)
      : Either.right("safe")
  }
  if (definition.sql === undefined) {
    return Either.left(`${connection.name} is a SQL connection; a curated tool on it runs a statement`)
  }
  const bound = bindCurated(definition, connection, {})
  if (Either.isLeft(bound)) return Either.left(bound.left)
  const facts: PolicyFacts = {}
  const verdict = sqlVerdict(bound.right.sql, dialectOf(connection), facts)
  if (verdict.kind === "refuse") return Either.left(verdict.error.message)
  const tier = facts.tier ?? facts.classification?.tier ?? "write"
  if (tier === "destructive") return Either.left("a curated tool cannot drop or truncate data")
  return Either.right(tier === "safe" ? "safe" : "write")
}
