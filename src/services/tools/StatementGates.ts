import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { StatementTier } from "../../domain/StatementClassifier.ts"
import type { MethodContext } from "../MethodContext.ts"
import { dialectOf, type PolicyFacts, sqlVerdict, writeGateRefusal } from "../policy/StatementPolicy.ts"

export { dialectOf } from "../policy/StatementPolicy.ts"

/**
 * D-24 for `explain_query` and `confirm_destructive_operation`: one statement per call; files/code
 * refused for every external caller (the statement policy's SQL classifier gate, D-70).
 */
export const classifyForExecution = (query: string, connection: Connection) =>
  Effect.suspend(() => {
    const facts: PolicyFacts = {}
    const verdict = sqlVerdict(query, dialectOf(connection), facts)
    return verdict.kind === "refuse"
      ? Effect.fail(verdict.error)
      : Effect.succeed(
        facts.classification ?? { tier: facts.tier ?? "write", reachesFilesOrCode: false, statementCount: 1 }
      )
  })

/** Wire contract §5 point 8 / D-12: the policy's write gates (scope, external access) for a built statement. */
export const checkWriteGates = (tier: StatementTier, connection: Connection, context: MethodContext) =>
  Effect.suspend(() => {
    const refusal = writeGateRefusal({ principal: context.principal, connection }, tier)
    return refusal === undefined ? Effect.void : Effect.fail(refusal)
  })

/** The leading keyword of a statement, for the approval question ("Allow UPDATE on 'Sample'?"). */
export const statementVerb = (query: string): string => {
  // An executable comment (MySQL `/*! … */`, `/*M! … */`) is code, not a comment to skip (D-75).
  const match = /^(?:\s|--[^\n]*\n|\/\*(?!M?!)[\s\S]*?\*\/)*([A-Za-z]+)/.exec(query)
  return match?.[1]?.toUpperCase() ?? "this statement"
}
