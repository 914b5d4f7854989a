import { HttpApiBuilder, HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, Schedule, Stream } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import type { UiEvent } from "../../domain/UiSchemas.ts"
import { ActivityLog } from "../../services/ActivityLog.ts"
import { Approvals } from "../../services/Approvals.ts"
import { BrowseHandlers } from "./BrowseHandlers.ts"
import { ConnectionsHandlers } from "./ConnectionsHandlers.ts"
import { activityQuery, McpHandlers } from "./McpHandlers.ts"
import { InsightHandlers } from "./InsightHandlers.ts"
import { SearchAdminHandlers } from "./SearchAdminHandlers.ts"
import { ServerHandlers } from "./ServerHandlers.ts"
import { UiSessions } from "./UiSessions.ts"

const frame = (event: UiEvent) => `data: ${JSON.stringify(event)}\n\n`

/**
 * `GET /api/events`: the dialogs waiting for the user, then every new or settled one, as Server-Sent Events, with a
 * keep-alive comment every 15 s (product-decisions §3.2 "The app dialog": the UI answers in a modal).
 */
const EventsRoute = HttpLayerRouter.add("GET", "/api/events", Effect.gen(function*() {
  const approvals = yield* Approvals
  const snapshot = yield* approvals.list
  const changes = approvals.events.pipe(Stream.map((event): UiEvent =>
    event.kind === "pending" ? { _tag: "Pending", approval: event.approval } : { _tag: "Settled", id: event.id, decision: event.decision }
  ))
  const frames = Stream.concat(Stream.make(frame({ _tag: "Snapshot", approvals: snapshot })), Stream.map(changes, frame)).pipe(
    Stream.merge(Stream.schedule(Stream.repeatValue(": keep-alive\n\n"), Schedule.spaced("15 seconds")), { haltStrategy: "left" })
  )
  return HttpServerResponse.stream(Stream.encodeText(frames), {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache" }
  })
}))

/** `GET /api/activity.csv`: the filtered activity log as a download (product-decisions §6). */
const ActivityCsvRoute = HttpLayerRouter.add("GET", "/api/activity.csv", Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = Object.fromEntries(new URL(request.url, "http://127.0.0.1").searchParams)
  const log = yield* ActivityLog
  yield* log.flush
  const csv = yield* log.exportCsv(activityQuery({ ...params, limit: params["limit"] === undefined ? 10_000 : Number(params["limit"]) }))
  return HttpServerResponse.text(csv, {
    contentType: "text/csv; charset=utf-8",
    headers: { "content-disposition": "attachment; filename=\"dbdesk-activity.csv\"" }
  })
}))

const ApiRoutes = HttpLayerRouter.addHttpApi(UiApi).pipe(
  Layer.provide([ServerHandlers, ConnectionsHandlers, BrowseHandlers, SearchAdminHandlers, McpHandlers, InsightHandlers]),
  Layer.provide(UiSessions.Default),
  Layer.provide(NodeHttpServer.layerContext)
)

/** The UI API as a node:http handler; its resources live in the caller's scope. */
export const makeUiHandler = Effect.gen(function*() {
  const app = yield* HttpLayerRouter.toHttpEffect(Layer.mergeAll(ApiRoutes, EventsRoute, ActivityCsvRoute))
  return yield* NodeHttpServer.makeHandler(app)
})

export { HttpApiBuilder }
