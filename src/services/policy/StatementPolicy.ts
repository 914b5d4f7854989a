import { Either } from "effect"
import { type GuardPolicy, guardsAnything } from "../../domain/ColumnGuard.ts"
import type { Connection } from "../../domain/Connection.ts"
import type { Principal, Scope } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { Settings } from "../../domain/Settings.ts"
import { costVerdict } from "./CostPolicy.ts"
import {
  type Classification,
  classifyStatement,
  type SqlDialect,
  type StatementTier
} from "../../domain/StatementClassifier.ts"
import { SECRET_CATALOGS } from "../../domain/SecretCatalogs.ts"
import { type StatementFacts, statementGate } from "../../domain/StatementGate.ts"
import { policyFailure, toolFailure, type ToolFailure } from "../../domain/ToolErrors.ts"
import { classifyConsoleText } from "../../search/ConsoleRequest.ts"

/**
 * The decision on one statement from one caller (D-70), made of the gates the server runs for
 * `execute_query` and `confirm_destructive_operation`, in the server's order. The tools enact this decision and the
 * policy explainer prints it: there is no second implementation. Each gate is pure; the two that ask a person (the
 * access dialog, the statement approval) say so, and the server then asks.
 *
 * More gates are added to `STATEMENT_GATES` at their place in the order (D-64's AI settings sit before the
 * approval); a gate reads the input and the facts earlier gates found (`facts.tier`), and refuses, asks or passes.
 */
export type PolicyTool = "execute_query" | "confirm_destructive_operation"

type ConnectionApprovalMode = Settings["mcp"]["connectionApproval"]

/** The tools' own scopes beyond `tools:read` (wire contract §4.3); the tool definitions take them from here. */
export const TOOL_SCOPES: Record<PolicyTool, ReadonlyArray<Scope>> = {
  execute_query: [],
  confirm_destructive_operation: ["tools:write", "admin"]
}

/** What the server knows of the access dialog's memory for this caller and connection (D-29). */
export type GrantState = "granted" | "refused" | "none" | "unknown"

export interface PolicyInput {
  readonly tool: PolicyTool
  readonly principal: Pick<Principal, "access" | "scopes" | "connections" | "kind" | "tokenName">
  readonly connection: Connection
  readonly statement: string
  /** The client declares form elicitation (D-26). */
  readonly elicitation: boolean
  readonly connectionApproval: ConnectionApprovalMode
  readonly grant: GrantState
  /** The call's `database` argument: where a MySQL statement's unqualified names are (the connection's by default). */
  readonly database?: string | undefined
}

export interface PolicyFacts {
  tier?: StatementTier
  classification?: Classification
  /** What the AI-settings gate found, for the driver to decide the answer with (D-64); absent when nothing is guarded. */
  guard?: { readonly policy: GuardPolicy; readonly facts: StatementFacts }
}

export type GateVerdict =
  | { readonly kind: "pass"; readonly detail: string }
  | { readonly kind: "ask"; readonly detail: string }
  | { readonly kind: "skip"; readonly detail: string }
  | { readonly kind: "refuse"; readonly detail: string; readonly error: ProtocolError | ToolFailure }

export type GateId =
  | "scope"
  | "external_access"
  | "ai_policy"
  | "allowlist"
  | "access_dialog"
  | "classifier"
  | "destructive_tool"
  | "write_scope"
  | "write_access"
  | "ai_settings"
  | "cost_guard"
  | "approval"

export interface StatementGate {
  readonly id: GateId
  readonly title: string
  readonly decide: (input: PolicyInput, facts: PolicyFacts) => GateVerdict
}

export interface GateStep {
  readonly id: GateId
  readonly title: string
  readonly verdict: GateVerdict
}

export type PolicyOutcome =
  | { readonly kind: "refused"; readonly error: ProtocolError | ToolFailure }
  | { readonly kind: "runs"; readonly tier: StatementTier; readonly asks: ReadonlyArray<GateId> }

export interface PolicyDecision {
  readonly steps: ReadonlyArray<GateStep>
  readonly outcome: PolicyOutcome
  readonly facts: PolicyFacts
}

const pass = (detail: string): GateVerdict => ({ kind: "pass", detail })
const refuse = (error: ProtocolError | ToolFailure, detail = error.message): GateVerdict => ({
  kind: "refuse",
  detail,
  error
})

export type HiddenReason = "external_access_blocked" | "ai_policy_never" | "token_allowlist"

const hiddenText: Record<HiddenReason, string> = {
  external_access_blocked: "its external access is set to blocked",
  ai_policy_never: "its AI policy is set to never",
  token_allowlist: "this token is not allowed to use it"
}

/** D-12: blocked, AI policy `never`, or outside the token's allowlist hide a connection. */
export const hiddenReason = (
  principal: Pick<Principal, "connections">,
  connection: Connection
): HiddenReason | undefined => {
  if (connection.externalAccess === "blocked") return "external_access_blocked"
  if (connection.aiPolicy === "never") return "ai_policy_never"
  if (principal.connections !== "all" && !principal.connections.includes(connection.id)) return "token_allowlist"
  return undefined
}

/** Wire contract §5 point 8: a hidden connection answers -33007 with `data.reason` wherever it is named. */
export const hiddenRefusal = (reason: HiddenReason, connectionId: string) =>
  ProtocolError.of(-33007, `The user does not allow AI clients to use this connection: ${hiddenText[reason]}`, {
    reason,
    connectionId
  })

/** Wire contract §4.3: the scopes a tool needs beyond tools:read that the caller lacks, as -33007. */
export const toolScopeRefusal = (
  name: string,
  toolScopes: ReadonlyArray<Scope>,
  held: ReadonlyArray<Scope>
): ProtocolError | undefined => {
  const missing = toolScopes.filter((scope) => !held.includes(scope))
  return missing.length === 0
    ? undefined
    : ProtocolError.of(-33007, `The tool ${name} needs the scope ${missing.join(", ")}`, {
      requiredScopes: ["tools:read", ...toolScopes]
    })
}

/** D-29: the refusal remembered for 60 s after the user refused the access dialog. */
export const refusedAccess = (connection: Connection) =>
  ProtocolError.of(-33007, `The user refused access to '${connection.name}' for this client`, {
    reason: "user_refused_access",
    connectionId: connection.id
  })

/** Whether the access dialog is asked (D-29). */
export const accessDialogVerdict = (
  connection: Connection,
  mode: ConnectionApprovalMode,
  grant: GrantState
): GateVerdict => {
  if (connection.aiPolicy !== "askEachTime") return pass(`AI policy ${connection.aiPolicy}: no access dialog`)
  if (mode === "alwaysApprove") {
    return pass("AI policy askEachTime, but mcp.connectionApproval is alwaysApprove: no access dialog")
  }
  if (mode === "oncePerConnection" && grant === "granted") {
    return pass("AI policy askEachTime: access already granted to this caller")
  }
  if (grant === "refused") return refuse(refusedAccess(connection), "the user refused access less than 60 s ago")
  return {
    kind: "ask",
    detail: `AI policy askEachTime: the app asks "<client> wants to access '${connection.name}'"${
      grant === "unknown" ? " (unless the running server remembers a grant)" : ""
    }`
  }
}

export const dialectOf = (
  connection: Connection
): SqlDialect => (connection.type === "postgresql" ? "postgresql" : connection.type === "mysql" ? "mysql" : "sqlite")

/** D-22 for SQL: one statement per call; files/code refused for every external caller. */
export const sqlVerdict = (statement: string, dialect: SqlDialect, facts: PolicyFacts): GateVerdict => {
  if (statement.trim() === "") return refuse(toolFailure("invalid_argument", "query must not be empty"))
  const classification = classifyStatement(statement, dialect)
  if (classification.statementCount > 1) return refuse(toolFailure("invalid_argument", "send one statement at a time"))
  if (classification.reachesFilesOrCode) {
    return refuse(
      toolFailure(
        "denied",
        `this statement reads or writes files or runs code on the database server, which AI clients may never do${
          classification.reason === undefined ? "" : ` (${classification.reason})`
        }`
      )
    )
  }
  facts.tier = classification.tier
  facts.classification = classification
  return pass(
    `${classification.tier}${classification.reason === undefined ? "" : `: ${classification.reason}`}${
      classification.approvalHint === undefined ? "" : ` (${classification.approvalHint})`
    }`
  )
}

/** D-22: SQL by the statement classifier, a search connection's console text by its request tier. */
export const classifierVerdict = (statement: string, connection: Connection, facts: PolicyFacts): GateVerdict => {
  if (connection.type !== "search") return sqlVerdict(statement, dialectOf(connection), facts)
  const tier = classifyConsoleText(statement)
  if (Either.isLeft(tier)) return refuse(toolFailure("invalid_argument", tier.left.message))
  facts.tier = tier.right
  return pass(
    `a ${tier.right} request (search console: GET, HEAD and searches read; other POST, PUT, PATCH write; DELETE destroys)`
  )
}

const tierOf = (facts: PolicyFacts): StatementTier => facts.tier ?? "write"

/** The connection's AI settings as they apply (D-65): SQLite has no secret catalogs, so without rules nothing is guarded. */
export const guardPolicyOf = (connection: Connection): GuardPolicy => ({
  rules: connection.maskingRules,
  secretCatalogs: connection.type !== "search" && SECRET_CATALOGS[dialectOf(connection)].length > 0
    ? connection.secretCatalogs
    : "open"
})

/** The gates of `execute_query` and `confirm_destructive_operation`, in the order the server runs them. */
export const STATEMENT_GATES: ReadonlyArray<StatementGate> = [
  {
    id: "scope",
    title: "Tool scope",
    decide: (input) => {
      const refusal = toolScopeRefusal(input.tool, TOOL_SCOPES[input.tool], input.principal.scopes)
      return refusal === undefined
        ? pass(`holds ${["tools:read", ...TOOL_SCOPES[input.tool]].join(", ")}`)
        : refuse(refusal)
    }
  },
  {
    id: "external_access",
    title: "External access",
    decide: (input) =>
      input.connection.externalAccess === "blocked"
        ? refuse(hiddenRefusal("external_access_blocked", input.connection.id))
        : pass(`external access ${input.connection.externalAccess}`)
  },
  {
    id: "ai_policy",
    title: "AI policy",
    decide: (input) =>
      input.connection.aiPolicy === "never"
        ? refuse(hiddenRefusal("ai_policy_never", input.connection.id))
        : pass(`AI policy ${input.connection.aiPolicy}`)
  },
  {
    id: "allowlist",
    title: "Token allowlist",
    decide: (input) =>
      hiddenReason(input.principal, input.connection) === "token_allowlist"
        ? refuse(hiddenRefusal("token_allowlist", input.connection.id))
        : pass(
          input.principal.connections === "all"
            ? "the token may use every connection"
            : "the connection is on the token's list"
        )
  },
  {
    id: "access_dialog",
    title: "Access dialog",
    decide: (input) => accessDialogVerdict(input.connection, input.connectionApproval, input.grant)
  },
  {
    id: "classifier",
    title: "Classifier verdict",
    decide: (input, facts) => classifierVerdict(input.statement, input.connection, facts)
  },
  {
    id: "destructive_tool",
    title: "Destructive-tool requirement",
    decide: (input, facts) => {
      const destructive = tierOf(facts) === "destructive"
      if (input.tool === "execute_query") {
        return destructive
          ? refuse(toolFailure("denied", "this statement drops or truncates data; use confirm_destructive_operation"))
          : pass("not destructive: execute_query may run it")
      }
      return destructive
        ? pass("destructive: confirm_destructive_operation is the tool for it")
        : refuse(toolFailure("invalid_argument", "this statement is not destructive: use execute_query"))
    }
  },
  {
    id: "write_scope",
    title: "Write scope",
    decide: (input, facts) => {
      if (tierOf(facts) === "safe") return { kind: "skip", detail: "a read needs no write scope" }
      return input.principal.scopes.includes("tools:write")
        ? pass("holds tools:write")
        : refuse(
          ProtocolError.of(-33007, "This statement changes data, which needs the tools:write scope", {
            requiredScopes: ["tools:read", "tools:write"]
          })
        )
    }
  },
  {
    id: "write_access",
    title: "External access for writes",
    decide: (input, facts) => {
      if (tierOf(facts) === "safe") {
        return { kind: "skip", detail: "a read is allowed on readOnly and readWrite connections" }
      }
      return input.connection.externalAccess === "readWrite"
        ? pass("external access readWrite allows changes")
        : refuse(
          ProtocolError.of(-33007, `'${input.connection.name}' allows AI clients to read only`, {
            reason: "external_access_read_only",
            connectionId: input.connection.id
          })
        )
    }
  },
  {
    id: "ai_settings",
    title: "AI settings (secret catalogs, masking rules)",
    decide: (input, facts) => {
      // A search connection's rules apply to the fields of its answer (SearchGuard), not to the request text.
      if (input.connection.type === "search") {
        return { kind: "skip", detail: "a search request is checked field by field as its answer is built" }
      }
      const policy = guardPolicyOf(input.connection)
      if (!guardsAnything(policy)) {
        return { kind: "skip", detail: "no masking rules, and no secret catalogs on this database" }
      }
      const database = input.database ?? (input.connection.type === "mysql" ? input.connection.database : undefined)
      const verdict = statementGate(input.statement, dialectOf(input.connection), policy, database)
      if (verdict.kind === "refuse") return refuse(policyFailure(verdict.refusal))
      facts.guard = { policy, facts: verdict.facts }
      return pass(
        `names no secret catalog or credential; ${
          policy.rules.length === 0 ? "no masking rules" : `${policy.rules.length} masking rule(s)`
        } applied to the answer's columns by their origins`
      )
    }
  },
  {
    id: "cost_guard",
    title: "Cost guard",
    decide: (input, facts) => costVerdict(input.connection, input.statement, tierOf(facts))
  },
  {
    id: "approval",
    title: "Approval mode",
    decide: (input, facts) => {
      const tier = tierOf(facts)
      const needed = input.tool === "confirm_destructive_operation" || tier !== "safe" ||
        input.connection.confirmQueries === "all"
      if (!needed) {
        return {
          kind: "skip",
          detail:
            `a read on a connection whose confirm queries is ${input.connection.confirmQueries}: runs without asking`
        }
      }
      const why = input.tool === "confirm_destructive_operation"
        ? "consent is always asked for a destructive statement"
        : tier === "safe"
        ? "confirm queries is all"
        : `a ${tier} statement`
      const how = !input.elicitation
        ? "the app's own dialog (the call waits for it)"
        : input.principal.access === "fullAccess"
        ? "the elicitation form, which replaces the app dialog on fullAccess"
        : "the elicitation form, then the app's own dialog (confirmed twice)"
      return {
        kind: "ask",
        detail: `${why}: the database checks it first and a dry run is shown; asked through ${how}`
      }
    }
  }
]

/** Runs the gates in order; the first refusal ends the decision. */
export const decideStatement = (
  input: PolicyInput,
  gates: ReadonlyArray<StatementGate> = STATEMENT_GATES
): PolicyDecision => {
  const facts: PolicyFacts = {}
  const steps: Array<GateStep> = []
  for (const gate of gates) {
    const verdict = gate.decide(input, facts)
    steps.push({ id: gate.id, title: gate.title, verdict })
    if (verdict.kind === "refuse") return { steps, facts, outcome: { kind: "refused", error: verdict.error } }
  }
  return {
    steps,
    facts,
    outcome: {
      kind: "runs",
      tier: tierOf(facts),
      asks: steps.filter((step) => step.verdict.kind === "ask").map((step) => step.id)
    }
  }
}

/** The policy's two write gates alone (scope, then external access), for `insert_rows`, whose statement is built. */
export const writeGateRefusal = (
  input: Pick<PolicyInput, "principal" | "connection">,
  tier: StatementTier
): ProtocolError | ToolFailure | undefined => {
  const facts: PolicyFacts = { tier }
  const full: PolicyInput = {
    ...input,
    tool: "execute_query",
    statement: "",
    elicitation: false,
    connectionApproval: "alwaysApprove",
    grant: "unknown"
  }
  for (const gate of STATEMENT_GATES) {
    if (gate.id !== "write_scope" && gate.id !== "write_access") continue
    const verdict = gate.decide(full, facts)
    if (verdict.kind === "refuse") return verdict.error
  }
  return undefined
}
