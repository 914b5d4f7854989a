import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import { SettingsStore } from "../../services/Settings.ts"
import {
  cookieValue,
  hostAllowed,
  LOCKED_PAGE,
  originAllowed,
  sameSecret,
  sessionCookie,
  UI_COOKIE
} from "./UiAccess.ts"
import { type ListenError, UiAddress, type UiAddressShape, type UiListenerOptions } from "./UiAddress.ts"
import { defaultUiDirectory, serveStatic } from "./UiStatic.ts"

export type NodeHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void

export { UiAddress, type UiAddressShape, type UiListenerOptions } from "./UiAddress.ts"

const listen = (server: http.Server, port: number) =>
  Effect.async<number, ListenError>((resume) => {
    const onError = (error: ListenError) => resume(Effect.fail(error))
    server.once("error", onError)
    server.listen({ host: "127.0.0.1", port }, () => {
      server.off("error", onError)
      const address = server.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
    })
  })

const send = (
  res: http.ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {}
) => {
  res.writeHead(status, { ...headers, "content-type": type, "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const refuse = (res: http.ServerResponse, status: number, api: boolean, message: string) =>
  api
    ? send(res, status, "application/json", JSON.stringify({ _tag: "UiError", message }))
    : send(res, status, "text/html; charset=utf-8", status === 401 ? LOCKED_PAGE : `<!doctype html><p>${message}</p>`)

/**
 * The UI server's loopback port (D-3): `ui.port` (23751), a kernel-assigned port when busy, never the
 * MCP port. Bound first, so the server identity can name the real origin; every request passes the Host and Origin
 * checks, the terminal key is exchanged for an HttpOnly SameSite=Strict cookie, and nothing but that exchange is
 * served without the cookie.
 */
export const UiListener = (options: UiListenerOptions = {}) =>
  Layer.scoped(
    UiAddress,
    Effect.gen(function*() {
      const settings = yield* SettingsStore
      const { mcp, ui } = yield* settings.current
      const key = randomBytes(24).toString("base64url")
      const session = randomBytes(32).toString("base64url")
      const directory = options.directory ?? defaultUiDirectory()
      let api: NodeHandler | undefined
      let port = 0

      const handle: NodeHandler = (req, res) => {
        res.setHeader("x-frame-options", "DENY")
        res.setHeader("referrer-policy", "no-referrer")
        const host = req.headers.host
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        const isApi = url.pathname === "/api" || url.pathname.startsWith("/api/")
        if (host === undefined || !hostAllowed(host, port)) {
          return refuse(res, 403, isApi, "Forbidden host: open the UI at 127.0.0.1 with the printed port.")
        }
        if (!originAllowed(req.headers.origin, host)) {
          return refuse(res, 403, isApi, "Forbidden origin: the UI API answers its own pages only.")
        }
        const presentedKey = url.searchParams.get("key")
        if (presentedKey !== null && !isApi) {
          if (!sameSecret(presentedKey, key)) {
            return refuse(res, 401, false, "")
          }
          url.searchParams.delete("key")
          return send(res, 302, "text/plain", "", {
            location: `${url.pathname}${url.search}`,
            "set-cookie": sessionCookie(session),
            "cache-control": "no-store"
          })
        }
        // the pairing exchange is called by the client program being paired, which has no UI cookie: its code and PKCE
        // verifier are the proof (D-35); Host and Origin were checked above
        const exchange = req.method === "POST" && url.pathname === "/api/pairing/exchange"
        if (!exchange && !sameSecret(cookieValue(req.headers.cookie, UI_COOKIE), session)) {
          return refuse(res, 401, isApi, "Open the UI from the address dbdesk serve printed (it ends with ?key=…).")
        }
        if (!isApi) {
          return serveStatic(directory, url.pathname, res)
        }
        if (api === undefined) {
          return refuse(res, 503, true, "dbdesk is still starting; try again in a moment.")
        }
        api(req, res)
      }

      const server = http.createServer(handle)
      // never the MCP port; a busy port falls back to one the kernel assigns
      const wanted = ui.port === mcp.port ? 0 : ui.port
      port = yield* listen(server, wanted).pipe(
        Effect.catchAll((error) => (error.code === "EADDRINUSE" ? listen(server, 0) : Effect.die(error)))
      )
      yield* Effect.addFinalizer(() =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
      )
      const origin = `http://127.0.0.1:${port}`
      return {
        port,
        origin,
        launchUrl: `${origin}/?key=${key}`,
        attach: (handler) =>
          Effect.sync(() => {
            api = handler
          })
      } satisfies UiAddressShape
    })
  )
