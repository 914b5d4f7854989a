import { Effect, Either } from "effect"
import { type ApprovalPreview, TOOK_TOO_LONG } from "../../domain/ApprovalPreview.ts"
import { bindPlaceholders, scanPlaceholders } from "../../domain/CuratedSql.ts"
import {
  auditedArguments,
  curatedInputSchema,
  type CuratedSearch,
  type CuratedToolDefinition,
  decodeCuratedArguments,
  PARAMETER_REFERENCE
} from "../../domain/CuratedTool.ts"
import type { Json } from "../../domain/Json.ts"
import type { BrowseFilter, BrowseQuery, ScalarValue } from "../../domain/SqlBrowse.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { Classification } from "../../domain/StatementClassifier.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import { ActivityLog } from "../ActivityLog.ts"
import { ApprovalPreflight, type Preflight } from "../ApprovalPreflight.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { Connections } from "../Connections.ts"
import { Drivers } from "../Drivers.ts"
import type { MethodContext } from "../MethodContext.ts"
import { dialectOf, type PolicyFacts, sqlVerdict } from "../policy/StatementPolicy.ts"
import { SettingsStore } from "../Settings.ts"
import { StatementApproval } from "../StatementApproval.ts"
import { StatementRecorder } from "../StatementRecorder.ts"
import { mapDriverFailure } from "./DriverFailures.ts"
import { guardedResult } from "./Guards.ts"
import { SearchToolRoutes } from "./SearchToolRoutes.ts"
import { statementVerb } from "./StatementGates.ts"
import type { AnyTool } from "./Tool.ts"

/**
 * A search-engine tool's browse: each filter value written `:name` replaced by the argument, typed, for the filter
 * compiler to place in `filter_by` (it quotes or refuses a value, never splices it); a filter whose optional argument
 * was left out is dropped.
 */
export const searchQuery = (spec: CuratedSearch, values: Readonly<Record<string, unknown>>): BrowseQuery => {
  const resolve = (value: unknown): { readonly value: ScalarValue } | undefined => {
    const match = typeof value === "string" ? PARAMETER_REFERENCE.exec(value) : null
    if (match === null) return { value: value as ScalarValue }
    const given = values[match[1]!]
    return given === null || given === undefined ? undefined : { value: given as ScalarValue }
  }
  const filters: Array<BrowseFilter> = []
  for (const filter of spec.filters ?? []) {
    const value = filter.value === undefined ? undefined : resolve(filter.value)
    const second = filter.second_value === undefined ? undefined : resolve(filter.second_value)
    if (
      (filter.value !== undefined && value === undefined) || (filter.second_value !== undefined && second === undefined)
    ) continue
    filters.push({
      column: filter.column,
      operator: filter.operator,
      ...(value === undefined ? {} : { value: value.value }),
      ...(second === undefined ? {} : { second_value: second.value })
    })
  }
  return {
    filters,
    ...(spec.logic === undefined ? {} : { logic: spec.logic }),
    ...(spec.sort === undefined ? {} : { sort: spec.sort }),
    ...(spec.limit === undefined ? {} : { limit: spec.limit })
  }
}

/** Whether the tool only reads under every SQL dialect (its connection's is known at call time only); a search reads. */
export const readsOnly = (definition: CuratedToolDefinition): boolean => {
  if (definition.search !== undefined) return true
  const sql = definition.sql
  if (sql === undefined) return false
  return (["sqlite", "postgresql", "mysql"] as const).every((dialect) => {
    const placeholders = scanPlaceholders(sql, dialect)
    if (Either.isLeft(placeholders)) return false
    const facts: PolicyFacts = {}
    const verdict = sqlVerdict(bindPlaceholders(sql, dialect, placeholders.right, {}).sql, dialect, facts)
    return verdict.kind !== "refuse" && (facts.tier ?? facts.classification?.tier) === "safe"
  })
}

/**
 * D-97: a tool with a secret parameter shows its dry run counted only: the rows (which may hold the secret value) and
 * the database's message of a failed dry run (which may quote it) are withheld from the question.
 */
export const secretSafe = (definition: CuratedToolDefinition, preflight: Preflight): Preflight =>
  (definition.parameters ?? []).some((parameter) => parameter.secret === true)
    ? {
      ...preflight,
      preview: Effect.map(preflight.preview, (preview): ApprovalPreview =>
        preview._tag === "Changes"
          ? { ...preview, columns: [], rows: [], note: "rows are not shown: an argument of this tool is secret" }
          : preview._tag === "Unavailable" && preview.reason !== TOOK_TOO_LONG
          ? {
            _tag: "Unavailable",
            reason: "the dry run failed (its message is not shown: an argument of this tool is secret)"
          }
          : preview)
    }
    : preflight

/** The connection a definition names, by id first, then by name. */
export const findConnection = (all: ReadonlyArray<Connection>, idOrName: string): Connection | undefined =>
  all.find((connection) => connection.id === idOrName) ?? all.find((connection) => connection.name === idOrName)

/** The statement with the arguments bound for the connection's driver, or why it cannot be. */
export const bindCurated = (
  definition: CuratedToolDefinition,
  connection: Connection,
  values: Readonly<Record<string, unknown>>
) => {
  const dialect = dialectOf(connection)
  if (definition.sql === undefined) return Either.left("it has no SQL statement")
  const placeholders = scanPlaceholders(definition.sql, dialect)
  if (Either.isLeft(placeholders)) return Either.left(placeholders.left)
  const declared = new Set((definition.parameters ?? []).map((parameter) => parameter.name))
  const undeclared = placeholders.right.find((placeholder) => !declared.has(placeholder.name))
  if (undeclared !== undefined) {
    return Either.left(`the statement uses :${undeclared.name}, which is not a declared parameter`)
  }
  const unused = [...declared].find((name) => !placeholders.right.some((placeholder) => placeholder.name === name))
  if (unused !== undefined) return Either.left(`the parameter ${unused} does not appear in the statement as :${unused}`)
  return Either.right(bindPlaceholders(definition.sql, dialect, placeholders.right, values))
}

/**
 * A saved statement exposed as a tool: typed arguments bound by the driver (never written into the text), the same
 * statement policy as execute_query at each call (scope, external access, AI policy, token allowlist, access dialog,
 * classifier, write gates, AI settings, approval), and one activity row naming the tool and its arguments.
 */
export const CuratedToolFactory = Effect.gen(function*() {
  const access = yield* ConnectionAccess
  const connections = yield* Connections
  const drivers = yield* Drivers
  const settings = yield* SettingsStore
  const approval = yield* StatementApproval
  const preflight = yield* ApprovalPreflight
  const recorder = yield* StatementRecorder
  const activity = yield* ActivityLog
  const search = yield* SearchToolRoutes

  /** The activity row of a run: the tool, its arguments (secret ones redacted), the tier, an advance approval. */
  const recordRun = (
    definition: CuratedToolDefinition,
    connectionId: string,
    context: MethodContext,
    values: Readonly<Record<string, Json>>,
    tier: string,
    approvedInAdvance: boolean
  ) =>
    activity.record({
      category: "tool",
      action: "tool.curated",
      subject: definition.name,
      connectionId,
      tokenId: context.principal.tokenId ?? null,
      tokenName: context.principal.tokenName ?? null,
      details: JSON.stringify({
        arguments: auditedArguments(definition, values),
        tier,
        ...(approvedInAdvance ? { approvedInAdvance: true } : {})
      })
    })

  const prepare = (definition: CuratedToolDefinition, rawArguments: unknown, context: MethodContext) =>
    Effect.gen(function*() {
      const raw = (typeof rawArguments === "object" && rawArguments !== null ? rawArguments : {}) as Record<
        string,
        unknown
      >
      const decoded = decodeCuratedArguments(definition, raw)
      if (Either.isLeft(decoded)) return yield* toolFailure("invalid_argument", decoded.left)
      const named = findConnection(yield* connections.list, definition.connection)
      if (named === undefined) {
        return yield* toolFailure(
          "not_found",
          `the connection ${JSON.stringify(definition.connection)} of ${definition.name} no longer exists`
        )
      }
      if (named.type === "search" || definition.search !== undefined) {
        if (named.type !== "search" || definition.search === undefined) {
          return yield* toolFailure(
            "invalid_argument",
            `${definition.name} cannot run: ${
              named.type === "search"
                ? "a search-engine connection takes a search, not sql"
                : "a search runs on a search-engine connection"
            }`
          )
        }
        const connection = yield* access.resolve(context.principal, named.id, context.clientInfo?.name)
        if (connection.type !== "search") {
          return yield* toolFailure("invalid_argument", `${definition.name} cannot run on ${connection.name}`)
        }
        yield* recordRun(definition, connection.id, context, decoded.right, "safe", false)
        const { limits } = yield* settings.current
        return search.browse(
          connection,
          definition.search.collection,
          searchQuery(definition.search, decoded.right),
          limits.defaultRows,
          context
        )
      }
      const sql = definition.sql ?? ""
      const bound = bindCurated(definition, named, decoded.right)
      if (Either.isLeft(bound)) {
        return yield* toolFailure("invalid_argument", `${definition.name} cannot run: ${bound.left}`)
      }
      const { limits } = yield* settings.current
      // Classified again at each call, with the arguments as bound parameters: the same gates as execute_query.
      const { connection, decision } = yield* access.statement(context, named.id, "execute_query", bound.right.sql)
      const classification: Classification = decision.facts.classification ??
        { tier: "write", reachesFilesOrCode: false, statementCount: 1 }
      const handle = classification.tier === "safe" ? "readonly" : "readwrite"
      const asks = decision.outcome.kind === "runs" && decision.outcome.asks.includes("approval")
      const approvedInAdvance = asks && definition.approvedInAdvance === true
      const gate = asks && !approvedInAdvance
        ? yield* approval.gate(context, {
          connection,
          what: `${statementVerb(sql)} (${definition.name})`,
          statement: `${sql}\n-- arguments: ${JSON.stringify(auditedArguments(definition, decoded.right))}`,
          // The dry run binds the arguments as the run will (D-69): the rows shown are the ones the call would change.
          preflight: secretSafe(definition, preflight.sql(connection, bound.right.sql, handle, {}, bound.right.params)),
          ...(classification.approvalHint === undefined ? {} : { warning: classification.approvalHint })
        })
        : undefined
      if (gate?.kind === "input_required") return Effect.succeed(gate.result)
      yield* recordRun(definition, connection.id, context, decoded.right, classification.tier, approvedInAdvance)
      const run = mapDriverFailure(Effect.gen(function*() {
        if (gate !== undefined) yield* gate.askApp
        const driver = yield* drivers.forConnection(connection)
        return yield* driver.execute(bound.right.sql, {
          maxRows: limits.defaultRows,
          timeoutSeconds: limits.queryTimeoutSeconds,
          access: handle,
          params: bound.right.params,
          limits,
          guard: decision.facts.guard
        })
      }))
      return Effect.map(recorder.observe(connection.id, bound.right.sql, run), guardedResult)
    })

  const make = (definition: CuratedToolDefinition): AnyTool => ({
    name: definition.name,
    scopes: [],
    listing: {
      name: definition.name,
      description: definition.description,
      inputSchema: curatedInputSchema(definition),
      // MCP's defaults (readOnlyHint false) describe a tool that writes; the hint is only a hint, each call is classified.
      ...(readsOnly(definition) ? { annotations: { readOnlyHint: true } } : {})
    },
    prepare: (rawArguments, context) => prepare(definition, rawArguments, context)
  })

  return { make } as const
})
