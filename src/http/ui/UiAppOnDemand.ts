import { Effect, Layer, Scope } from "effect"
import type { makeUiHandler } from "./UiApp.ts"
import { type NodeHandler, UiAddress } from "./UiListener.ts"

type UiServices = Exclude<Effect.Effect.Context<typeof makeUiHandler>, Scope.Scope>

const send500 = (res: Parameters<NodeHandler>[1], message: string) => {
  const body = JSON.stringify({ _tag: "UiError", message })
  if (!res.headersSent) {
    res.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  }
  res.end(body)
}

/**
 * The UI API behind the access checks of UiListener, imported and built on the first request that passes them
 * (D-76): `serve` answers MCP without loading the HTTP API framework, the UI handlers or the search client.
 * The handler's resources live in this layer's scope, so they close with the server.
 */
export const UiAppOnDemand = Layer.scopedDiscard(Effect.gen(function*() {
  const address = yield* UiAddress
  const context = yield* Effect.context<UiServices>()
  const scope = yield* Effect.scope
  let handler: Promise<NodeHandler> | undefined
  const load = () => (handler ??= Effect.runPromise(
    Effect.promise(() => import("./UiApp.ts")).pipe(
      Effect.flatMap((module) => module.makeUiHandler),
      Scope.extend(scope),
      Effect.provide(context)
    )
  ))
  const handle: NodeHandler = (req, res) => {
    load().then(
      (api) => api(req, res),
      (error: unknown) =>
        send500(res, `The UI API could not start: ${error instanceof Error ? error.message : String(error)}`)
    )
  }
  yield* address.attach(handle)
}))
