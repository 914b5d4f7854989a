import { spawn } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { join } from "node:path"
import { tempHome } from "../support/TestServer.ts"

export const ROOT = join(import.meta.dirname, "..", "..")
export const DBDESK = join(ROOT, "bin", "dbdesk.mjs")
export const DBDESK_MCP = join(ROOT, "bin", "dbdesk-mcp.mjs")

export interface BridgeRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly lines: Array<any>
}

/** Runs the bridge binary to completion with `input` on stdin (stdin stays open until the process exits, unless `end`). */
export const runBridgeProcess = (
  home: string,
  options: { input?: string; binary?: "dbdesk" | "dbdesk-mcp"; end?: boolean } = {}
) =>
  new Promise<BridgeRun>((resolve, reject) => {
    const args = options.binary === "dbdesk" ? [DBDESK, "bridge"] : [DBDESK_MCP]
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DBDESK_HOME: home },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdin.on("error", () => undefined)
    if (options.input !== undefined) child.stdin.write(options.input)
    if (options.end === true) child.stdin.end()
    child.on("error", reject)
    child.on("close", (code) => {
      const lines = stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      resolve({ code, stdout, stderr, lines })
    })
  })

/** A support directory (0700) holding a handshake file written as the server would, with overrides. */
export const writeHandshakeHome = (fields: Record<string, unknown>, mode = 0o600) => {
  const home = tempHome("dbdesk-bridge-")
  mkdirSync(home, { recursive: true, mode: 0o700 })
  chmodSync(home, 0o700)
  const file = join(home, "mcp-handshake.json")
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      port: 1,
      pid: process.pid,
      instanceId: "00000000-0000-4000-8000-000000000001",
      protocolVersion: "2026-07-28",
      startedAt: new Date().toISOString(),
      uiUrl: "http://127.0.0.1:23751",
      bridgeToken: "dbd_fake",
      bridgeTokenExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      ...fields
    })
  )
  chmodSync(file, mode)
  return { home, file }
}

export interface FakeAnswer {
  readonly status?: number
  readonly body?: unknown
  /** Answer as SSE: one `data:` frame per message, each after a keep-alive comment. */
  readonly sse?: ReadonlyArray<unknown>
}

export interface FakeServer {
  readonly port: number
  /** Every message POSTed, with its headers. */
  readonly received: Array<{ readonly headers: http.IncomingHttpHeaders; readonly body: any }>
  readonly close: () => Promise<void>
}

/** A tiny node:http stand-in for dbdesk; `answer` returns the JSON-RPC reply (or a status and body). */
export const startFakeServer = async (
  answer: (body: any, headers: http.IncomingHttpHeaders) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>
): Promise<FakeServer> => {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: any }> = []
  const server = http.createServer((request, response) => {
    let text = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (text += chunk))
    request.on("end", () => {
      const body = JSON.parse(text)
      received.push({ headers: request.headers, body })
      void Promise.resolve(answer(body, request.headers)).then((reply) => {
        if (reply?.sse !== undefined) {
          response.writeHead(200, { "content-type": "text/event-stream" })
          response.end(
            reply.sse.map((frame) => `: keep-alive\n\nevent: message\ndata: ${JSON.stringify(frame)}\n\n`).join("")
          )
          return
        }
        if (reply === undefined || reply.body === undefined) {
          response.writeHead(reply?.status ?? 202).end()
          return
        }
        response.writeHead(reply.status ?? 200, { "content-type": "application/json" }).end(JSON.stringify(reply.body))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export const discoverAnswer = (id: unknown, versions: ReadonlyArray<string>, instanceId: string) => ({
  jsonrpc: "2.0",
  id,
  result: {
    supportedVersions: versions,
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: false },
      completions: {},
      extensions: {}
    },
    instructions: "fake",
    resultType: "complete",
    ttlMs: 3_600_000,
    cacheScope: "public",
    _meta: {
      "io.modelcontextprotocol/serverInfo": { name: "dbdesk", version: "0.0.0" },
      "dev.dbdesk/instanceId": instanceId
    }
  }
})

/** A pid that no longer names a process: a child that has already exited. */
export const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.on("exit", () => resolve(child.pid!))
  })
