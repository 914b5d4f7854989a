// D-53: the bridge calls the server over its local channel when there is one, and over HTTP otherwise;
// the activity log's address says which way each call came (the channel is "local", HTTP is the loopback address).
import { Context, Effect } from "effect"
import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { Connections } from "../../src/services/Connections.ts"
import { eventually } from "../support/RawRequests.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"
import { DBDESK_MCP } from "./BridgeHarness.ts"

let server: TestServer
let connectionId: string

beforeAll(async () => {
  server = await startTestServer()
  connectionId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
})
afterAll(() => server.stop())

/** Runs the installed bridge binary as a legacy stdio host would, for one query; returns its answer. */
const queryThroughBridge = async (env: Record<string, string>, query: string) => {
  const child = spawn(process.execPath, [DBDESK_MCP], {
    env: { ...process.env, DBDESK_HOME: server.home, ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const lines: Array<any> = []
  let buffer = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk
    const parts = buffer.split("\n")
    buffer = parts.pop() ?? ""
    lines.push(...parts.map((line) => JSON.parse(line)))
  })
  child.stderr.resume()
  const exited = new Promise((resolve) => child.on("close", resolve))
  child.stdin.write(
    `${
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "channel-test", version: "1" } }
      })
    }\n`
  )
  child.stdin.write(
    `${
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "execute_query", arguments: { connection_id: connectionId, query } }
      })
    }\n`
  )
  expect(await eventually(() => lines.some((line) => line.id === 2))).toBe(true)
  child.stdin.end()
  await exited
  return lines.find((line) => line.id === 2)
}

const addressOfCall = async (digestOf: string) => {
  const rows = await Effect.runPromise(
    Effect.flatMap(ActivityLog, (log) => Effect.zipRight(log.flush, log.list({ category: "tool", limit: 1000 }))).pipe(
      Effect.provide(server.context)
    )
  )
  const { createHash } = await import("node:crypto")
  const digest = createHash("sha256").update(digestOf).digest("hex")
  return rows.find((row) => row.digest === digest)?.address
}

describe("the bridge's way to the server (D-53)", () => {
  it("D-53 the bridge calls over the local channel by default, and over HTTP with DBDESK_BRIDGE_CHANNEL=off; both answer alike", async () => {
    const viaChannel = await queryThroughBridge({}, "SELECT 'channel' AS way")
    const viaHttp = await queryThroughBridge({ DBDESK_BRIDGE_CHANNEL: "off" }, "SELECT 'http' AS way")
    expect(viaChannel.result.structuredContent.rows).toEqual([["channel"]])
    expect(viaHttp.result.structuredContent.rows).toEqual([["http"]])
    expect(Object.keys(viaChannel.result).sort()).toEqual(Object.keys(viaHttp.result).sort())
    expect(await addressOfCall("SELECT 'channel' AS way")).toBe("local")
    expect(await addressOfCall("SELECT 'http' AS way")).toBe("127.0.0.1")
  })
})
