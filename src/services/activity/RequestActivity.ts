import { Cause, Clock, Effect, Exit, Option } from "effect"
import { type ActivityEvent, POLICY_NOTE, type ToolOutcome } from "../../domain/Activity.ts"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import type { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { ClientInfo } from "../../domain/RequestEnvelope.ts"
import type { MethodContext } from "../MethodContext.ts"
import { ActivityLog } from "../ActivityLog.ts"
import { touch, trimToBound } from "../BoundedMap.ts"
import { ConnectedClients } from "../ConnectedClients.ts"
import { sha256Hex } from "./ActivityChain.ts"

/** D-52: an authentication success is logged once per client and token per 5 minutes. */
export const AUTH_SUCCESS_INTERVAL_MS = 5 * 60_000

/**
 * (client, token) pairs remembered for that rule at most: clientInfo comes from the caller, so a client sending a
 * new name on every call must not grow the map. Past it, pairs older than the interval go, then the least recent
 * down to three quarters; forgetting a pair early only logs its next success again.
 */
export const MAX_AUTH_LOG_KEYS = 4096

/** What the dispatcher reports about one audited call: a refusal before it ran, or how it ended. */
export interface CallAudit {
  readonly refused: (error: ProtocolError) => Effect.Effect<void>
  readonly settle: (work: Effect.Effect<JsonObject, ProtocolError>) => Effect.Effect<JsonObject, ProtocolError>
}

const silent: CallAudit = { refused: () => Effect.void, settle: (work) => work }

/** The statement a tool was given, if any; only its digest is ever stored (D-51). */
const statementOf = (args: JsonObject): string | undefined => {
  for (const key of ["query", "sql", "statement"]) if (typeof args[key] === "string") return args[key]
  return undefined
}

const outcomeOfCode = (code: number): ToolOutcome =>
  code === -33007 || code === -33008 || code === -33009
    ? "denied"
    : code === -33002
    ? "cancelled"
    : code === -33003
    ? "timeout"
    : "error"

/** Wire contract §7.2: a tool error's text starts with its code; `denied`, `timeout`, `user_cancelled` have outcomes of their own. */
const outcomeOfResult = (result: JsonObject): { outcome: ToolOutcome; details: string | null } => {
  // D-67: the masking rules that changed the answer, or the gate that refused it (never a value).
  if (result["isError"] !== true) {
    const note = (result as { readonly [POLICY_NOTE]?: string })[POLICY_NOTE]
    return { outcome: "success", details: note === undefined ? null : `policy: ${note}` }
  }
  const structured = result["structuredContent"]
  const error = isJsonObject(structured) ? structured["error"] : undefined
  const code = isJsonObject(error) && typeof error["code"] === "string" ? error["code"] : "internal_failure"
  const outcome: ToolOutcome = code === "denied"
    ? "denied"
    : code === "timeout"
    ? "timeout"
    : code === "user_cancelled"
    ? "cancelled"
    : "error"
  const policy = isJsonObject(error) && isJsonObject(error["policy"]) ? error["policy"] : undefined
  return {
    outcome,
    details: policy === undefined
      ? `code=${code}`
      : `code=${code}; gate=${String(policy["gate"])}; rule=${String(policy["rule"])}; setting=${
        String(policy["setting"])
      }`
  }
}

/** A protocol error's code, and for an AI-settings refusal (D-65) its gate and rule. */
const protocolDetails = (error: ProtocolError): string => {
  const data = error.data
  return typeof data?.["rule"] === "string"
    ? `code=${error.code}; gate=${String(data["reason"])}; rule=${data["rule"]}; setting=${String(data["setting"])}`
    : `code=${error.code}`
}

const connectionOfUri = (uri: string): string | null => /^dbdesk:\/\/connections\/([^/?#]+)/.exec(uri)?.[1] ?? null

/**
 * The one place requests reach the activity log (D-51): every authenticated
 * request marks its client as seen, an authentication success is logged at most once per client
 * and token per 5 minutes, and `tools/call` and `resources/read` get one row each with outcome,
 * duration, connection and statement digest. `server/discover` and list calls are not logged.
 * Rows carry the caller's clientInfo (C2.2-d) and trace context as received (C2.2-f).
 */
export class RequestActivity extends Effect.Service<RequestActivity>()("dbdesk/services/RequestActivity", {
  effect: Effect.gen(function*() {
    const log = yield* ActivityLog
    const clients = yield* ConnectedClients
    const lastAuthLogged = new Map<string, number>()

    const who = (
      context: MethodContext,
      clientInfo: ClientInfo | undefined
    ): Omit<ActivityEvent, "category" | "action"> => ({
      tokenId: context.principal.tokenId ?? null,
      tokenName: context.principal.tokenName ?? null,
      clientName: clientInfo?.name ?? null,
      clientVersion: clientInfo?.version ?? null,
      clientTitle: clientInfo?.title ?? null,
      address: context.remoteAddress,
      traceparent: context.envelope?.traceContext.traceparent ?? null,
      tracestate: context.envelope?.traceContext.tracestate ?? null,
      baggage: context.envelope?.traceContext.baggage ?? null
    })

    const authSuccess = (context: MethodContext, clientInfo: ClientInfo | undefined, now: number) => {
      const key = JSON.stringify([clientInfo?.name ?? null, clientInfo?.version ?? null, context.principal.key])
      const last = lastAuthLogged.get(key)
      if (last !== undefined && now - last < AUTH_SUCCESS_INTERVAL_MS) return Effect.void
      touch(lastAuthLogged, key, now)
      trimToBound(lastAuthLogged, MAX_AUTH_LOG_KEYS, (at) => now - at >= AUTH_SUCCESS_INTERVAL_MS)
      return log.record({
        category: "auth",
        action: context.principal.kind === "anonymous" ? "auth.anonymous" : "auth.success",
        outcome: "success",
        ...who(context, clientInfo)
      })
    }

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const begin = Effect.fnUntraced(function*(context: MethodContext, clientInfo: ClientInfo | undefined) {
      if (context.method === "server/discover") return silent
      const started = yield* Clock.currentTimeMillis
      yield* clients.seen({ principal: context.principal, clientInfo, address: context.remoteAddress })
      yield* authSuccess(context, clientInfo, started)
      const base = who(context, clientInfo)
      const args = isJsonObject(context.params["arguments"]) ? context.params["arguments"] : {}
      const row: ActivityEvent | undefined = context.method === "tools/call"
        ? {
          category: "tool",
          action: "tool.call",
          subject: typeof context.params["name"] === "string" ? context.params["name"] : null,
          connectionId: typeof args["connection_id"] === "string" ? args["connection_id"] : null,
          digest: ((statement) => (statement === undefined ? null : sha256Hex(statement)))(statementOf(args)),
          ...base
        }
        : context.method === "resources/read" && typeof context.params["uri"] === "string"
        ? {
          category: "resource",
          action: "resource.read",
          subject: context.params["uri"],
          connectionId: connectionOfUri(context.params["uri"]),
          ...base
        }
        : undefined
      if (row === undefined) return silent
      const finish = (outcome: ToolOutcome, details: string | null) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => log.record({ ...row, outcome, details, durationMs: now - started })
        )
      return {
        refused: (error) => finish(outcomeOfCode(error.code), protocolDetails(error)),
        settle: (work) =>
          Effect.onExit(work, (exit) => {
            if (Exit.isSuccess(exit)) {
              const { details, outcome } = outcomeOfResult(exit.value)
              return finish(outcome, details)
            }
            const failure = Cause.failureOption(exit.cause)
            if (Option.isSome(failure)) return finish(outcomeOfCode(failure.value.code), protocolDetails(failure.value))
            return Cause.isInterruptedOnly(exit.cause) ? finish("cancelled", null) : finish("error", "defect")
          })
      } satisfies CallAudit
    })

    return { begin } as const
  })
}) {}
