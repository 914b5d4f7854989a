import { Context, type Effect } from "effect"

/**
 * What the published declarations say about the UI listener, written without Node's types: a consumer compiled with
 * `"types": []` (no @types/node) reads them, so nothing here names `NodeJS.*` or a `node:` module. The listener itself
 * (UiListener.ts) uses node:http.
 */
export interface UiListenerOptions {
  /** The built UI (default `dist/ui`). */
  readonly directory?: string
}

/** A failure to listen, as Node reports it: an Error with its errno code (`EADDRINUSE`, `EACCES`…). */
export interface ListenError extends Error {
  readonly code?: string | undefined
}

/** The request and response a UI handler gets: node:http's IncomingMessage and ServerResponse. */
export interface UiRequest {
  readonly url?: string | undefined
  readonly method?: string | undefined
}
export interface UiResponse {
  end(): unknown
}

/**
 * A node:http request handler. Declared as a method's type so that a handler written for node:http's own
 * IncomingMessage and ServerResponse is accepted (method parameters compare both ways).
 */
export type UiHandler = { handle(req: UiRequest, res: UiResponse): void }["handle"]

export interface UiAddressShape {
  readonly port: number
  /** `http://127.0.0.1:<port>`: what `serverInfo.websiteUrl` and the handshake's `uiUrl` carry (no secret). */
  readonly origin: string
  /** The terminal URL with the per-launch key (D-4). */
  readonly launchUrl: string
  /** Installs the UI API handler once the services behind it are built. */
  readonly attach: (handler: UiHandler) => Effect.Effect<void>
}

export class UiAddress extends Context.Tag("dbdesk/http/ui/UiAddress")<UiAddress, UiAddressShape>() {}
