import { HttpApiBuilder, HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, Option, Schedule, Stream } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import type { UiEvent } from "../../domain/UiSchemas.ts"
import { ActivityLog } from "../../services/ActivityLog.ts"
import { type ActivityExportFormat, formatActivity } from "../../services/activity/ActivityExport.ts"
import { Pairing } from "../../services/Pairing.ts"
import { ConsoleTabs } from "../../services/ConsoleTabs.ts"
import { SavedQueries } from "../../services/SavedQueries.ts"
import { Approvals } from "../../services/Approvals.ts"
import { BrowseHandlers } from "./BrowseHandlers.ts"
import { CatalogHandlers } from "./CatalogHandlers.ts"
import { ConnectionsHandlers } from "./ConnectionsHandlers.ts"
import { ExportHandlers } from "./ExportHandlers.ts"
import { activityQuery, McpHandlers } from "./McpHandlers.ts"
import { InsightHandlers } from "./InsightHandlers.ts"
import { SearchAdminHandlers } from "./SearchAdminHandlers.ts"
import { ServerHandlers } from "./ServerHandlers.ts"
import { UiSessions } from "./UiSessions.ts"
import { WorkHandlers } from "./WorkHandlers.ts"

const frame = (event: UiEvent) => `data: ${JSON.stringify(event)}\n\n`

/**
 * `GET /api/events`: the dialogs waiting for the user, then every new or settled one, as Server-Sent Events, with a
 * keep-alive comment every 15 s (D-28: the UI answers in a modal).
 */
const EventsRoute = HttpLayerRouter.add(
  "GET",
  "/api/events",
  Effect.gen(function*() {
    const approvals = yield* Approvals
    const snapshot = yield* approvals.list
    const changes = approvals.events.pipe(Stream.map((event): UiEvent =>
      event.kind === "pending"
        ? { _tag: "Pending", approval: event.approval }
        : { _tag: "Settled", id: event.id, decision: event.decision }
    ))
    const frames = Stream.concat(
      Stream.make(frame({ _tag: "Snapshot", approvals: snapshot })),
      Stream.map(changes, frame)
    ).pipe(
      Stream.merge(Stream.schedule(Stream.repeatValue(": keep-alive\n\n"), Schedule.spaced("15 seconds")), {
        haltStrategy: "left"
      })
    )
    return HttpServerResponse.stream(Stream.encodeText(frames), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache" }
    })
  })
)

/** `GET /api/activity.csv` and `.jsonl`: the filtered activity log as a download (D-51). */
const activityDownload = (format: ActivityExportFormat) =>
  HttpLayerRouter.add(
    "GET",
    `/api/activity.${format}`,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const params = Object.fromEntries(new URL(request.url, "http://127.0.0.1").searchParams)
      const log = yield* ActivityLog
      yield* log.flush
      const entries = yield* log.list(
        activityQuery({ ...params, limit: params["limit"] === undefined ? 10_000 : Number(params["limit"]) })
      )
      return HttpServerResponse.text(formatActivity(entries, format), {
        contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
        headers: { "content-disposition": `attachment; filename="dbdesk-activity.${format}"` }
      })
    })
  )

/**
 * `POST /api/pairing/exchange {code, code_verifier}` → `{token}` (D-35). The one UI API
 * route a client program calls without the UI cookie (UiListener lets it through after the Host and Origin checks);
 * refusals carry the pairing client's status codes, and a lockout its Retry-After.
 */
const PairingExchangeRoute = HttpLayerRouter.add(
  "POST",
  "/api/pairing/exchange",
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pairing = yield* Pairing
    const body = yield* Effect.orElseSucceed(request.json, () => undefined)
    const address = Option.getOrElse(request.remoteAddress, () => "unknown")
    const outcome = yield* pairing.exchange(body, address)
    if (outcome._tag === "Token") {
      return yield* HttpServerResponse.json({
        token: outcome.token,
        access: outcome.access,
        expiresAt: outcome.expiresAt
      })
    }
    return yield* HttpServerResponse.json({ error: outcome.message }, {
      status: outcome.status,
      headers: outcome.status === 429 && "retryAfterSeconds" in outcome
        ? { "retry-after": String(outcome.retryAfterSeconds) }
        : {}
    })
  })
)

const ApiRoutes = HttpLayerRouter.addHttpApi(UiApi).pipe(
  Layer.provide([
    ServerHandlers,
    ConnectionsHandlers,
    BrowseHandlers,
    SearchAdminHandlers,
    McpHandlers,
    WorkHandlers,
    InsightHandlers,
    CatalogHandlers,
    ExportHandlers
  ]),
  Layer.provide([UiSessions.Default, SavedQueries.Default, ConsoleTabs.Default]),
  Layer.provide(NodeHttpServer.layerContext)
)

/** The UI API as a node:http handler; its resources live in the caller's scope. */
export const makeUiHandler = Effect.gen(function*() {
  const routes = Layer.mergeAll(
    ApiRoutes,
    EventsRoute,
    activityDownload("csv"),
    activityDownload("jsonl"),
    PairingExchangeRoute
  )
  const app = yield* HttpLayerRouter.toHttpEffect(routes)
  return yield* NodeHttpServer.makeHandler(app)
}).pipe(
  // one Pairing for the approval (in the API) and the exchange route, so both see the waiting codes
  Effect.provide(Pairing.Default)
)

export { HttpApiBuilder }
