import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { classifyStatement, type Classification, type SqlDialect } from "../../domain/StatementClassifier.ts"
import { toolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../MethodContext.ts"

export const dialectOf = (connection: Connection): SqlDialect =>
  connection.type === "postgresql" ? "postgresql" : connection.type === "mysql" ? "mysql" : "sqlite"

/**
 * product-decisions §3.1: one statement per call; files/code refused for every external caller;
 * destructive statements only through confirm_destructive_operation.
 */
export const classifyForExecution = (query: string, connection: Connection) =>
  Effect.gen(function*() {
    if (query.trim() === "") return yield* toolFailure("invalid_argument", "query must not be empty")
    const classification = classifyStatement(query, dialectOf(connection))
    if (classification.statementCount > 1) return yield* toolFailure("invalid_argument", "send one statement at a time")
    if (classification.reachesFilesOrCode) {
      return yield* toolFailure("denied", `this statement reads or writes files or runs code on the database server, which AI clients may never do${classification.reason === undefined ? "" : ` (${classification.reason})`}`)
    }
    return classification
  })

/** Wire contract §5 point 8 / product-decisions §2: scope and external access for a non-safe statement. */
export const checkWriteGates = (classification: Classification, connection: Connection, context: MethodContext) =>
  Effect.gen(function*() {
    if (classification.tier === "safe") return
    if (!context.principal.scopes.includes("tools:write")) {
      return yield* ProtocolError.of(-33007, "This statement changes data, which needs the tools:write scope", { requiredScopes: ["tools:read", "tools:write"] })
    }
    if (connection.externalAccess !== "readWrite") {
      return yield* ProtocolError.of(-33007, `'${connection.name}' allows AI clients to read only`, { reason: "external_access_read_only", connectionId: connection.id })
    }
  })

/** The leading keyword of a statement, for the approval question ("Allow UPDATE on 'Sample'?"). */
export const statementVerb = (query: string): string => {
  // An executable comment (MySQL `/*! … */`, `/*M! … */`) is code, not a comment to skip (issue 34).
  const match = /^(?:\s|--[^\n]*\n|\/\*(?!M?!)[\s\S]*?\*\/)*([A-Za-z]+)/.exec(query)
  return match?.[1]?.toUpperCase() ?? "this statement"
}
