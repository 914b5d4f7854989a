import { Context, Effect, Exit, Layer, Scope } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { SettingsPatch } from "../../src/domain/Settings.ts"
import { makeServerLayer, type ServerOptions } from "../../src/http/Server.ts"
import { McpServerAddress } from "../../src/http/NodeMcpServer.ts"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import { Tokens } from "../../src/services/Tokens.ts"

export interface TestServer {
  readonly url: string
  readonly port: number
  readonly home: string
  readonly context: Context.Context<any>
  /** The value of a token created at start when `token` names an access level (send it as a bearer token). */
  readonly token: string | undefined
  readonly stop: () => Promise<void>
}

export const tempHome = (prefix = "dbdesk-test-"): string => mkdtempSync(join(tmpdir(), prefix))

/** Starts the real server (every layer of the wiring file) on a free loopback port in a temp support directory. */
export interface TestServerOptions extends Omit<ServerOptions, "home" | "settings"> {
  readonly home?: string
  readonly settings?: SettingsPatch
  readonly token?: AccessLevel
}

export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const home = options.home ?? tempHome()
  const scope = Effect.runSync(Scope.make())
  const { token: _level, ...serverOptions } = options
  const layer = makeServerLayer({
    ...serverOptions,
    home,
    settings: { ...options.settings, mcp: { port: 0, ...options.settings?.mcp } }
  })
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const address = Context.get(context, McpServerAddress)
  const token = options.token === undefined
    ? undefined
    : (await Effect.runPromise(
      Context.get(context, Tokens).create({ name: `test ${options.token}`, access: options.token, connections: "all" })
    )).value
  return {
    url: address.url,
    port: address.port,
    home,
    context: context as Context.Context<any>,
    token,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
} as const

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

/** POSTs one JSON-RPC message with the modern headers derived from the body unless overridden. */
export const postMcp = async (
  url: string,
  body: unknown,
  headers: Record<string, string | undefined> = {}
): Promise<RawResponse> => {
  const message = body as { method?: string; params?: { name?: string; uri?: string; _meta?: Record<string, unknown> } }
  const version = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"]
  const defaults: Record<string, string> = { "content-type": "application/json" }
  if (typeof version === "string") defaults["mcp-protocol-version"] = version
  if (typeof message.method === "string") defaults["mcp-method"] = message.method
  const name = message.params?.name ?? message.params?.uri
  if (typeof name === "string") defaults["mcp-name"] = name
  const merged: Record<string, string> = { ...defaults }
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) delete merged[key.toLowerCase()]
    else merged[key.toLowerCase()] = value
  }
  const response = await fetch(url, {
    method: "POST",
    headers: merged,
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

export const modernRequest = (method: string, params: Record<string, unknown> = {}, id: string | number = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: { ...MODERN_META, ...(params["_meta"] as object | undefined) } }
})
