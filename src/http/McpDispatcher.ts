import { Cause, Effect, Either } from "effect"
import type { JsonObject } from "../domain/Json.ts"
import { isJsonObject, nestsDeeperThan } from "../domain/Json.ts"
import { type JsonRpcRequest, looksLikeResponse, readJsonRpcRequest, type RequestId } from "../domain/JsonRpc.ts"
import { ProtocolError } from "../domain/ProtocolErrors.ts"
import { META_PROTOCOL_VERSION } from "../domain/ProtocolVersions.ts"
import { decodeModernEnvelope, detectEra, type Era, type ModernEnvelope } from "../domain/RequestEnvelope.ts"
import { LegacySessions } from "../services/LegacySessions.ts"
import { type CallAudit, RequestActivity } from "../services/activity/RequestActivity.ts"
import { RateLimits } from "../services/RateLimits.ts"
import { type Deadline, RequestRegistry } from "../services/RequestRegistry.ts"
import { ServerIdentity } from "../services/ServerIdentity.ts"
import { Subscriptions } from "../services/Subscriptions.ts"
import { withScopeChallenge } from "../domain/AuthChallenges.ts"
import { Authenticator } from "./Authenticator.ts"
import { checkContentType, checkModernHeaders } from "./HeaderChecks.ts"
import { admitLegacy, withHeaders } from "./LegacyGate.ts"
import { emptyResponse, encodedResponse, jsonResponse, type McpHttpRequest, type McpHttpResponse } from "./McpHttp.ts"
import { type Execution, type McpMethod, type MethodContext, StreamingExecution } from "./McpMethod.ts"
import { McpMethods } from "./McpMethods.ts"
import { errorBody, errorResponse, sseHeaders } from "./ResponseEncoding.ts"
import { finalizeResult } from "./ResultEnvelope.ts"
import { SupportedVersions } from "./SupportedVersions.ts"

/**
 * How deeply a request may nest arrays and objects (a product decision: no method of the contract needs more than a
 * handful of levels). Past it the request is -32600, before any recursive decoding could exhaust the stack.
 */
export const MAX_REQUEST_DEPTH = 128

/** Wire contract §8: the handler deadline, for every method except `subscriptions/listen` (§3.2). */
export const HANDLER_DEADLINE_SECONDS = 330

const handlerDeadline: Deadline = {
  seconds: HANDLER_DEADLINE_SECONDS,
  onTimeout: () =>
    ProtocolError.of(-33003, `The request ran past the ${HANDLER_DEADLINE_SECONDS} s handler deadline`, {
      deadline: "handler",
      seconds: HANDLER_DEADLINE_SECONDS
    })
}

/** Encoded answers kept at most (a key per era, method and scope set: a handful in practice). */
export const MAX_ENCODED_ANSWERS = 64

const parseBody = (body: string): Either.Either<unknown, undefined> => {
  try {
    return Either.right(JSON.parse(body) as unknown)
  } catch {
    return Either.left(undefined)
  }
}

const idOf = (value: unknown): RequestId | null => {
  if (!isJsonObject(value)) return null
  const id = value["id"]
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null
}

/**
 * The MCP request pipeline: one place each for the body and header checks, envelope decoding,
 * principal resolution, dispatch and error encoding, in the order of D-25.
 * Host/Origin and the HTTP method are checked before this, by the transport.
 */
export class McpDispatcher extends Effect.Service<McpDispatcher>()("dbdesk/http/McpDispatcher", {
  effect: Effect.gen(function*() {
    const methods = yield* McpMethods
    const authenticator = yield* Authenticator
    const identity = yield* ServerIdentity
    const versions = yield* SupportedVersions
    const sessions = yield* LegacySessions
    const registry = yield* RequestRegistry
    const subscriptions = yield* Subscriptions
    const rateLimits = yield* RateLimits
    const activity = yield* RequestActivity
    const serverInfo = { name: identity.serverInfo.name, version: identity.serverInfo.version }

    /** Wire contract §4.1: a notification is 202 with no body; only `notifications/cancelled` is acted on. */
    const onNotification = (request: McpHttpRequest, message: JsonObject) =>
      Effect.gen(function*() {
        if (message["method"] !== "notifications/cancelled") return
        const params = message["params"]
        const requestId = isJsonObject(params) ? params["requestId"] : undefined
        if (typeof requestId !== "string" && typeof requestId !== "number") return
        const principal = yield* authenticator.identifyNotifier(request)
        if (principal === undefined) return
        yield* registry.cancel(principal.key, requestId)
        yield* subscriptions.cancel(principal.key, requestId)
      }).pipe(Effect.catchAllCause(() => Effect.void), Effect.as(emptyResponse(202)))

    const decodeRequest = (request: McpHttpRequest) =>
      Effect.gen(function*() {
        const parsed = parseBody(request.body)
        if (
          Either.isRight(parsed) && isJsonObject(parsed.right) && !("id" in parsed.right) &&
          typeof parsed.right["method"] === "string"
        ) {
          return { notification: parsed.right } as const
        }
        const contentTypeError = checkContentType(request.headers)
        if (contentTypeError !== undefined) {
          return yield* Effect.fail({ error: contentTypeError, id: Either.isRight(parsed) ? idOf(parsed.right) : null })
        }
        if (Either.isLeft(parsed)) {
          return yield* Effect.fail({ error: ProtocolError.of(-32700), id: null })
        }
        const body = parsed.right
        if (Array.isArray(body)) {
          return yield* Effect.fail({
            error: ProtocolError.invalidRequest("Batches are not supported: send one JSON-RPC message per request"),
            id: null
          })
        }
        if (!isJsonObject(body)) {
          return yield* Effect.fail({
            error: ProtocolError.invalidRequest("The body must be one JSON-RPC request object"),
            id: null
          })
        }
        if (nestsDeeperThan(body, MAX_REQUEST_DEPTH)) {
          return yield* Effect.fail({
            error: ProtocolError.invalidRequest(`The request is nested more than ${MAX_REQUEST_DEPTH} levels deep`, {
              maxDepth: MAX_REQUEST_DEPTH
            }),
            id: idOf(body)
          })
        }
        if (looksLikeResponse(body)) {
          return yield* Effect.fail({
            error: ProtocolError.invalidRequest("This endpoint accepts requests, not JSON-RPC responses"),
            id: idOf(body)
          })
        }
        const decoded = readJsonRpcRequest(body)
        if (decoded === undefined || decoded.id === undefined) {
          return yield* Effect.fail({
            error: ProtocolError.invalidRequest(
              "Invalid JSON-RPC request: it needs jsonrpc \"2.0\", an integer or string id, a method string and an object params"
            ),
            id: idOf(body)
          })
        }
        return { request: decoded as JsonRpcRequest & { readonly id: RequestId } } as const
      })

    const execute = (method: McpMethod, context: MethodContext, execution: Execution, audit: CallAudit) => {
      const deadline = method.name === "subscriptions/listen" ? undefined : handlerDeadline
      return audit.settle(registry.track(context.principal.key, context.id, execution, deadline)).pipe(
        Effect.map((result) =>
          finalizeResult(
            result,
            { era: context.era, method: method.name, params: context.params },
            serverInfo,
            method.cacheHint?.(context.params, result)
          )
        ),
        Effect.catchAllDefect((defect) =>
          Effect.fail(
            ProtocolError.of(-32603, "Internal error", { detail: Cause.pretty(Cause.die(defect)).split("\n")[0] ?? "" })
          )
        )
      )
    }

    /** Results encoded once (methods with an `answerKey`): the key is era, method and the method's own key. */
    const answers = new Map<string, string>()
    const answered = (id: RequestId, result: string) =>
      encodedResponse(200, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`)

    const respond = (
      method: McpMethod,
      context: MethodContext,
      execution: Execution,
      stream: ProgressStream | undefined,
      audit: CallAudit,
      answerKey: string | undefined
    ) => {
      if (stream === undefined) {
        return execute(method, context, execution, audit).pipe(
          Effect.map((result) => {
            if (answerKey === undefined) return jsonResponse(200, { jsonrpc: "2.0", id: context.id, result })
            const text = JSON.stringify(result)
            if (answers.size < MAX_ENCODED_ANSWERS) answers.set(answerKey, text)
            return answered(context.id, text)
          }),
          Effect.catchAll((error) => Effect.succeed(errorResponse(error, context.id)))
        )
      }
      const work = execute(method, context, execution, audit).pipe(
        Effect.map((result) => ({ jsonrpc: "2.0", id: context.id, result })),
        Effect.catchAll((error) => Effect.succeed(errorBody(error, context.id)))
      )
      return Effect.succeed<McpHttpResponse>({
        kind: "events",
        headers: sseHeaders,
        run: (send) =>
          Effect.suspend(() => {
            stream.send = send
            return Effect.flatMap(work, (final) => send(JSON.stringify(final)))
          })
      })
    }

    const handleRequest = (http: McpHttpRequest, request: JsonRpcRequest & { readonly id: RequestId }) => {
      // Product-decisions §4 "Rate limits": the caller's slot is held until the execution ends, whatever ends it.
      let releaseSlot: Effect.Effect<void> = Effect.void
      return Effect.gen(function*() {
        const params: JsonObject = request.params ?? {}
        const era: Era = detectEra(http.headers["mcp-protocol-version"], request.params)
        let envelope: ModernEnvelope | undefined
        if (era === "modern") {
          const meta = params["_meta"]
          const version = isJsonObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined
          const headerError = checkModernHeaders(
            http.headers,
            request.method,
            params,
            typeof version === "string" && version !== "" ? version : undefined
          )
          if (headerError !== undefined) return yield* Effect.fail(headerError)
          envelope = yield* decodeModernEnvelope(params, versions.current())
        } else if (!versions.servesLegacy) {
          return yield* Effect.fail(
            ProtocolError.of(
              -32022,
              "This server speaks protocol revision 2026-07-28: send _meta[\"io.modelcontextprotocol/protocolVersion\"] with each request",
              {
                supported: [...versions.current()]
              }
            )
          )
        }
        const method = methods.get(request.method)
        if (method === undefined || !method.eras.includes(era)) {
          return yield* Effect.fail(ProtocolError.methodNotFound(request.method))
        }
        const principal = yield* authenticator.authenticate(http, method)
        releaseSlot = yield* rateLimits.admit(principal.key, method.name)
        // Product-decisions §4 "Era of a request": a legacy request other than initialize needs its session; modern ones never touch sessions.
        const admission = era === "legacy"
          ? yield* admitLegacy(sessions, versions.current(), http, { method: request.method, params }, principal)
          : undefined
        const missing = method.scopes.filter((scope) => !principal.scopes.includes(scope))
        if (missing.length > 0) {
          return yield* Effect.fail(
            ProtocolError.of(-33007, `This token lacks the scope ${missing.join(", ")} needed for ${method.name}`, {
              requiredScopes: [...method.scopes]
            })
          )
        }
        const progressToken = envelope?.progressToken ?? legacyProgressToken(params)
        const stream: ProgressStream | undefined = progressToken === undefined ? undefined : { send: () => Effect.void }
        let lastProgress = Number.NEGATIVE_INFINITY
        const context: MethodContext = {
          id: request.id,
          method: request.method,
          params,
          era,
          envelope,
          principal,
          clientInfo: envelope?.clientInfo ?? admission?.session.clientInfo,
          remoteAddress: http.remoteAddress,
          progress: (progress, message) =>
            Effect.suspend(() => {
              // Wire contract §4.1: progress must increase; a non-advancing update is dropped.
              if (stream === undefined || !(progress > lastProgress)) return Effect.void
              lastProgress = progress
              return Effect.asVoid(stream.send(JSON.stringify({
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken: progressToken!, progress, total: 1, message }
              })))
            })
        }
        // Product-decisions §6: the activity log sees every request here, once, with its outcome.
        const audit = yield* activity.begin(context, context.clientInfo)
        const ownKey = stream === undefined ? method.answerKey?.(context) : undefined
        const answerKey = ownKey === undefined ? undefined : `${era}\u0000${method.name}\u0000${ownKey}`
        const known = answerKey === undefined ? undefined : answers.get(answerKey)
        if (known !== undefined) {
          yield* releaseSlot
          return withHeaders(answered(request.id, known), admission?.headers ?? {})
        }
        const execution = yield* Effect.tapError(method.prepare(context), audit.refused)
        if (execution instanceof StreamingExecution) {
          yield* releaseSlot
          return withHeaders({ kind: "sse", headers: sseHeaders, frames: execution.frames }, admission?.headers ?? {})
        }
        return withHeaders(
          yield* respond(method, context, Effect.ensuring(execution, releaseSlot), stream, audit, answerKey),
          admission?.headers ?? {}
        )
      }).pipe(
        Effect.onInterrupt(() => releaseSlot),
        Effect.catchAll((error) => Effect.as(releaseSlot, errorResponse(withScopeChallenge(error), request.id)))
      )
    }

    const handle = (http: McpHttpRequest): Effect.Effect<McpHttpResponse> =>
      decodeRequest(http).pipe(
        Effect.flatMap((decoded) =>
          decoded.notification !== undefined
            ? onNotification(http, decoded.notification)
            : handleRequest(http, decoded.request)
        ),
        Effect.catchAll(({ error, id }) => Effect.succeed(errorResponse(error, id))),
        Effect.catchAllDefect(() => Effect.succeed(errorResponse(ProtocolError.of(-32603), null)))
      )

    return { handle } as const
  })
}) {}

/** Where a request's progress messages go (their JSON): the answer's writer, once the answer has started. */
interface ProgressStream {
  send: (json: string) => Effect.Effect<void>
}

const legacyProgressToken = (params: JsonObject): string | number | undefined => {
  const meta = params["_meta"]
  const token = isJsonObject(meta) ? meta["progressToken"] : undefined
  return typeof token === "string" || (typeof token === "number" && Number.isInteger(token)) ? token : undefined
}
