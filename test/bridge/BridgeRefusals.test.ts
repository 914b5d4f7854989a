import { Effect, Layer } from "effect"
import { chmodSync } from "node:fs"
import { PassThrough } from "node:stream"
import { afterEach, describe, expect, it } from "vitest"
import { runBridge } from "../../src/bridge/Bridge.ts"
import { FileInspector } from "../../src/bridge/HandshakeTrust.ts"
import { tempHome } from "../support/TestServer.ts"
import {
  deadPid,
  discoverAnswer,
  type FakeServer,
  runBridgeProcess,
  startFakeServer,
  writeHandshakeHome
} from "./BridgeHarness.ts"

const INSTANCE = "00000000-0000-4000-8000-000000000001"
const HOST_REQUEST = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })}\n`

/** Each refusal: exit 1, exactly one JSON-RPC error line (id null) on stdout, the explanation on stderr. */
const expectRefusal = (
  run: { code: number | null; lines: Array<any>; stdout: string; stderr: string },
  reason: string
) => {
  expect(run.code).toBe(1)
  expect(run.stdout.endsWith("\n")).toBe(true)
  expect(run.lines).toHaveLength(1)
  expect(run.lines[0]).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -33000, data: { reason } } })
  expect(typeof run.lines[0].error.message).toBe("string")
  expect(run.stderr).toContain(run.lines[0].error.message)
}

/**
 * With no server running: the advice on stderr at once, no line with id null, each request answered -33000 with the
 * installed command to start the server (not a development checkout's `npm start`), exit 1 when stdin ends.
 */
const expectNotRunning = (run: { code: number | null; lines: Array<any>; stdout: string; stderr: string }) => {
  expect(run.code).toBe(1)
  expect(run.lines).toEqual([
    {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -33000, message: expect.stringContaining("`dbdesk serve`"), data: { reason: "not_running" } }
    },
    {
      jsonrpc: "2.0",
      id: "two",
      error: { code: -33000, message: run.lines[0].error.message, data: { reason: "not_running" } }
    }
  ])
  expect(run.stderr).toContain(run.lines[0].error.message)
  expect(run.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1)
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/npm start/)
}
/** Two requests, a notification and a line that is not JSON: only the requests are answered. */
const REQUESTS = [
  HOST_REQUEST,
  `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
  "not json\n",
  `${JSON.stringify({ jsonrpc: "2.0", id: "two", method: "tools/call", params: { name: "list_connections" } })}\n`
].join("")

let fake: FakeServer | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

describe("the bridge refuses to start (D-53)", () => {
  it("C1-b with no server running (no handshake file) it answers each request with how to start the installed server, then exits 1", async () => {
    const run = await runBridgeProcess(tempHome("dbdesk-bridge-empty-"), {
      input: REQUESTS,
      binary: "dbdesk",
      end: true
    })
    expectNotRunning(run)
    const mcp = await runBridgeProcess(tempHome("dbdesk-bridge-empty-"), { input: REQUESTS, end: true })
    expectNotRunning(mcp)
  })

  it("C1-b a handshake file readable by group and others is refused", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2026-07-28"], INSTANCE) }))
    const { home } = writeHandshakeHome({ port: fake.port }, 0o644)
    const run = await runBridgeProcess(home, { input: HOST_REQUEST })
    expectRefusal(run, "untrusted_handshake")
    expect(run.stderr).toMatch(/0644/)
    expect(fake.received).toHaveLength(0)
  })

  it("C1-b a handshake file in a directory group and others can write is refused", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2026-07-28"], INSTANCE) }))
    const { home } = writeHandshakeHome({ port: fake.port })
    chmodSync(home, 0o777)
    const run = await runBridgeProcess(home, { input: HOST_REQUEST })
    expectRefusal(run, "untrusted_handshake")
    expect(run.stderr).toMatch(/writable by group or others/)
    expect(fake.received).toHaveLength(0)
  })

  it("C1-b a handshake file owned by another user is refused (simulated stat)", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2026-07-28"], INSTANCE) }))
    const { file, home } = writeHandshakeHome({ port: fake.port })
    const stranger = Layer.succeed(FileInspector, {
      ...FileInspector.node,
      lstat: async (path: string) => {
        const facts = await FileInspector.node.lstat(path)
        return path === file && facts !== undefined ? { ...facts, uid: facts.uid + 1 } : facts
      }
    })
    const output = new PassThrough()
    const errors = new PassThrough()
    let stdout = ""
    let stderr = ""
    output.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    errors.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const input = new PassThrough()
    input.write(HOST_REQUEST)
    const code = await Effect.runPromise(runBridge({ home, input, output, errors }).pipe(Effect.provide(stranger)))
    const lines = stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    expectRefusal({ code, lines, stdout, stderr }, "untrusted_handshake")
    expect(stderr).toMatch(/owned by uid/)
    expect(fake.received).toHaveLength(0)
  })

  it("C1-b a handshake file naming a dead pid means no server is running", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2026-07-28"], INSTANCE) }))
    const pid = await deadPid()
    const { home } = writeHandshakeHome({ port: fake.port, pid })
    const run = await runBridgeProcess(home, { input: REQUESTS, end: true })
    expectNotRunning(run)
    expect(run.stderr).toContain(`pid ${pid}`)
    expect(fake.received).toHaveLength(0)
  })

  it("C1-c the bridge refuses to start when 2026-07-28 is not in supportedVersions, having forwarded nothing", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2025-11-25", "2025-06-18"], INSTANCE) }))
    const { home } = writeHandshakeHome({ port: fake.port })
    const run = await runBridgeProcess(home, { input: HOST_REQUEST })
    expectRefusal(run, "unsupported_version")
    expect(run.stderr).toMatch(/2026-07-28/)
    expect(fake.received.map((entry) => entry.body.method)).toEqual(["server/discover"])
    expect(fake.received[0]!.headers["mcp-method"]).toBe("server/discover")
    expect(fake.received[0]!.headers["authorization"]).toBe("Bearer dbd_fake")
  })

  it("C1-c the bridge refuses to start when discover answers another instance id", async () => {
    fake = await startFakeServer((body) => ({
      body: discoverAnswer(body.id, ["2026-07-28"], "11111111-1111-4111-8111-111111111111")
    }))
    const { home } = writeHandshakeHome({ port: fake.port })
    const run = await runBridgeProcess(home, { input: HOST_REQUEST })
    expectRefusal(run, "instance_mismatch")
    expect(fake.received.map((entry) => entry.body.method)).toEqual(["server/discover"])
  })

  it("C1-b with a live pid but nothing listening on the port it says how to start the server", async () => {
    const closed = await startFakeServer(() => undefined)
    await closed.close()
    const { home } = writeHandshakeHome({ port: closed.port })
    const run = await runBridgeProcess(home, { input: REQUESTS, end: true })
    expectNotRunning(run)
    expect(run.stderr).toMatch(/ECONNREFUSED/)
  })

  it("C1-b a handshake past bridgeTokenExpiresAt is not trusted", async () => {
    fake = await startFakeServer((body) => ({ body: discoverAnswer(body.id, ["2026-07-28"], INSTANCE) }))
    const { home } = writeHandshakeHome({
      port: fake.port,
      bridgeTokenExpiresAt: new Date(Date.now() - 1000).toISOString()
    })
    const run = await runBridgeProcess(home, { input: HOST_REQUEST })
    expectRefusal(run, "expired_handshake")
    expect(fake.received).toHaveLength(0)
  })
})
