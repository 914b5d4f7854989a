import { HttpClient, HttpClientRequest } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Undici from "@effect/platform-node/Undici"
import { Clock, Duration, Effect, Either, Redacted, Schema, Stream } from "effect"
import type { Scope } from "effect"
import type { SearchConnectionSettings } from "../domain/SearchConnection.ts"
import { SearchEngineError, SearchPathRefused } from "../domain/SearchErrors.ts"
import { EngineCollection } from "./CollectionSchema.ts"
import { clusterPolicy, NodeRotation } from "./SearchCluster.ts"

/** W3C trace context of the MCP call a request is made for, forwarded unchanged (D-51, C2.2-f). */
export interface TraceContext {
  readonly traceparent?: string | undefined
  readonly tracestate?: string | undefined
  readonly baggage?: string | undefined
}

export interface CallOptions {
  readonly trace?: TraceContext | undefined
}

export type EngineMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD"

export type EngineBody =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Text"; readonly text: string; readonly contentType: string }

/** A response as received, whatever its status. */
export interface EngineResponse {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/** The header carrying the key (doc 2 §2.1, D-55; S2.1-b). */
export const apiKeyHeader = "x-typesense-api-key"

/**
 * One path segment percent-encoded, `/` and `.` included (typesense-reference §7.1): a collection `a/b` is `a%2Fb`,
 * `v1.2` is `v1%2E2`.
 */
export const encodeSegment = (segment: string) => encodeURIComponent(segment).replace(/\./g, "%2E")

/** A path from raw segments: `enginePath("collections", name, "documents")`. */
export const enginePath = (...segments: ReadonlyArray<string>) => `/${segments.map(encodeSegment).join("/")}`

/**
 * Whether the URL standard would rewrite the path: `new URL` resolves `.`/`..` segments, `%2E%2E` included, and reads a
 * backslash as `/`, so `DELETE …/documents/%2E%2E` would otherwise reach `DELETE /collections/:c`.
 */
export const isRewrittenPath = (path: string) => {
  const bare = path.split("?")[0] ?? ""
  return bare.includes("\\") || bare.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment))
}

/**
 * The most of one engine response dbdesk reads (bytes): enough for a 1,000-row grid page of 128 KiB documents, and a
 * bound on what one request can make the server hold; the read stops there and the request is aborted.
 */
export const MAX_ENGINE_RESPONSE_BYTES = 128 * 1024 * 1024

const readBounded = <E>(body: Stream.Stream<Uint8Array, E>, request: string) =>
  Stream.runFoldEffect(body, { chunks: [] as Array<Uint8Array>, bytes: 0 }, (read, chunk) => {
    const bytes = read.bytes + chunk.length
    if (bytes > MAX_ENGINE_RESPONSE_BYTES) {
      return Effect.fail(
        new SearchEngineError({
          reason: "Transport",
          message: `Typesense answered more than ${
            MAX_ENGINE_RESPONSE_BYTES / 1024 / 1024
          } MiB for ${request}, more than dbdesk reads in one response: ask for fewer documents (a smaller per_page or limit), filter with filter_by, or leave large fields out with exclude_fields.`
        })
      )
    }
    read.chunks.push(chunk)
    return Effect.succeed({ chunks: read.chunks, bytes })
  }).pipe(Effect.map((read) => Buffer.concat(read.chunks, read.bytes).toString("utf8")))

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The engine's own `message`, verbatim (doc 2 §7); else the raw text; else the status. */
export const engineMessage = (response: EngineResponse): string => {
  const json = parseJson(response.body)
  if (typeof json === "object" && json !== null && "message" in json && typeof json.message === "string") {
    return json.message
  }
  const text = response.body.trim()
  return text === "" ? `HTTP ${response.status}` : text
}

const statusError = (response: EngineResponse) =>
  new SearchEngineError({ reason: "Status", status: response.status, message: engineMessage(response) })

/**
 * The REST client of one search-engine connection. Every request carries the key (S5-a) and the caller's trace
 * context; interrupting the calling fiber aborts the HTTP request.
 */
export const makeSearchClientWith = (settings: SearchConnectionSettings, httpClient: HttpClient.HttpClient) => {
  const apiKey = Redacted.value(settings.apiKey)
  // the caller's trace context goes out unchanged, never replaced by the client's own span (C2.2-f)
  const http = HttpClient.withTracerPropagation(httpClient, false)
  const policy = clusterPolicy(settings)
  const rotation = new NodeRotation(
    settings.allNodes,
    settings.cluster.nearestNode,
    policy.healthcheckIntervalMs,
    0,
    settings.cluster.randomizeNodes ?? true
  )

  /** One try on one node: the whole answer read, within connectionTimeoutSeconds when the connection has one. */
  const attempt = (
    origin: string,
    method: EngineMethod,
    path: string,
    body: EngineBody | undefined,
    options: CallOptions | undefined
  ) => {
    const headers: Record<string, string> = { accept: "application/json" }
    if (apiKey !== "") headers[apiKeyHeader] = apiKey
    for (const name of ["traceparent", "tracestate", "baggage"] as const) {
      const value = options?.trace?.[name]
      if (value !== undefined) headers[name] = value
    }
    let request = HttpClientRequest.make(method)(`${origin}${path}`).pipe(HttpClientRequest.setHeaders(headers))
    if (body !== undefined && method !== "GET" && method !== "HEAD") {
      request = body._tag === "Json"
        ? HttpClientRequest.bodyText(request, JSON.stringify(body.value), "application/json")
        : HttpClientRequest.bodyText(request, body.text, body.contentType)
    }
    const exchange = Effect.gen(function*() {
      const response = yield* http.execute(request)
      const text = yield* readBounded(response.stream, `${method} ${path.split("?")[0] ?? path}`)
      return {
        status: response.status,
        contentType: response.headers["content-type"] ?? "",
        body: text
      } satisfies EngineResponse
    }).pipe(
      Effect.scoped,
      Effect.catchTags({
        RequestError: (error) =>
          Effect.fail(
            new SearchEngineError({
              reason: "Transport",
              message: `Could not reach Typesense at ${origin}: ${transportReason(error.cause)}`
            })
          ),
        ResponseError: (error) =>
          Effect.fail(
            new SearchEngineError({
              reason: "Transport",
              message: `The response from Typesense at ${origin} broke off: ${error.message}`
            })
          )
      })
    )
    return policy.timeoutMs === undefined ? exchange : Effect.timeoutFail(exchange, {
      duration: Duration.millis(policy.timeoutMs),
      onTimeout: () =>
        new SearchEngineError({
          reason: "Transport",
          message: `Typesense at ${origin} did not answer within ${
            policy.timeoutMs! / 1000
          } s (connectionTimeoutSeconds)`
        })
    })
  }

  /**
   * A request on the cluster with the official client's failover (SearchCluster.ts): tried up to numRetries more times
   * after a 5xx or a failure to get an answer, each try on the node the rotation picks. Interruption ends it at once.
   */
  const send = Effect.fn("SearchClient.send")(function*(
    method: EngineMethod,
    path: string,
    body?: EngineBody,
    options?: CallOptions
  ) {
    if (isRewrittenPath(path)) {
      return yield* new SearchPathRefused({
        path,
        message:
          "This path holds a . or .. segment (or a backslash), which HTTP clients resolve to another resource, so it is not sent. A document or collection named . or .. cannot be reached from dbdesk."
      })
    }
    let last: EngineResponse | SearchEngineError | undefined
    for (let tries = 1; tries <= policy.numRetries + 1; tries++) {
      const node = rotation.next(yield* Clock.currentTimeMillis)
      const outcome = yield* Effect.either(attempt(node.origin, method, path, body, options))
      const now = yield* Clock.currentTimeMillis
      if (Either.isRight(outcome) && outcome.right.status >= 1 && outcome.right.status <= 499) {
        rotation.mark(node, true, now)
        return outcome.right
      }
      last = Either.isRight(outcome) ? outcome.right : outcome.left
      rotation.mark(node, false, now, Either.isRight(outcome) ? `HTTP ${outcome.right.status}` : outcome.left.message)
      if (tries <= policy.numRetries) yield* Effect.sleep(Duration.millis(policy.retryIntervalMs))
    }
    if (last instanceof SearchEngineError) {
      return yield* policy.numRetries === 0
        ? last
        : new SearchEngineError({
          reason: "Transport",
          message: `${last.message} (tried ${policy.numRetries + 1} times across the cluster's nodes)`
        })
    }
    return last!
  })

  /** Each node as the client sees it now (nearest first): healthy or not, and since when (D-59). */
  const nodeHealth = () =>
    rotation.all().map((node) => ({
      label: node.label,
      origin: node.origin,
      healthy: node.healthy,
      lastAccess: node.lastAccess,
      lastError: node.lastError
    }))

  /**
   * The dashboard's and the connection form's look at every node: the client's own view (above) and a `GET /health`
   * sent to that node alone (no retry, no failover), which does not change the client's view.
   */
  const probeNodes = Effect.fn("SearchClient.probeNodes")(function*() {
    return yield* Effect.forEach(nodeHealth(), (node) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const outcome = yield* Effect.either(
          Effect.timeoutFail(attempt(node.origin, "GET", "/health", undefined, undefined), {
            duration: Duration.millis(policy.timeoutMs ?? 5000),
            onTimeout: () =>
              new SearchEngineError({
                reason: "Transport",
                message: `no answer within ${(policy.timeoutMs ?? 5000) / 1000} s`
              })
          })
        )
        const ms = (yield* Clock.currentTimeMillis) - started
        const probe = Either.isLeft(outcome)
          ? { ok: false, ms, message: outcome.left.message }
          : {
            ok: outcome.right.status === 200,
            ms,
            message: outcome.right.status === 200
              ? "GET /health answered ok"
              : `GET /health answered ${outcome.right.status}: ${engineMessage(outcome.right)}`
          }
        return { ...node, probe }
      }), { concurrency: "unbounded" })
  })

  /** A call that must succeed (2xx); its JSON body, or the engine's message as a `SearchEngineError`. */
  const call = Effect.fn("SearchClient.call")(function*(
    method: EngineMethod,
    path: string,
    body?: EngineBody,
    options?: CallOptions
  ) {
    const response = yield* send(method, path, body, options)
    if (response.status < 200 || response.status > 299) return yield* statusError(response)
    return parseJson(response.body)
  })

  const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
    Schema.decodeUnknown(schema)(value).pipe(
      Effect.mapError(
        (error) =>
          new SearchEngineError({
            reason: "Decode",
            message: `Typesense sent an answer dbdesk cannot read: ${error.message}`
          })
      )
    )

  const getCollection = Effect.fn("SearchClient.getCollection")(function*(name: string, options?: CallOptions) {
    const json = yield* call("GET", enginePath("collections", name), undefined, options)
    return yield* decode(EngineCollection, json)
  })

  return { settings, send, call, decode, getCollection, nodeHealth, probeNodes } as const
}

export type SearchClient = ReturnType<typeof makeSearchClientWith>

const transportReason = (cause: unknown): string => {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause
  if (inner instanceof Error) {
    const code = "code" in inner && typeof inner.code === "string" ? ` (${inner.code})` : ""
    return `${inner.message}${code}`
  }
  return String(inner)
}

/**
 * The client of one connection over its own undici dispatcher, closed with the scope. Skip TLS Verification applies
 * to this dispatcher only, never process-wide (D-15, search row); `VerifyCA` checks the certificate
 * chain but not the host name.
 */
export const makeSearchClient = (
  settings: SearchConnectionSettings
): Effect.Effect<SearchClient, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() =>
      new Undici.Agent({
        connect: settings.skipTlsVerification
          ? { rejectUnauthorized: false }
          : settings.sslMode === "VerifyCA"
          ? { checkServerIdentity: () => undefined }
          : {}
      })
    ),
    (agent) => Effect.promise(() => agent.destroy())
  ).pipe(Effect.map((agent) => makeSearchClientWith(settings, NodeHttpClient.makeUndici(agent))))
