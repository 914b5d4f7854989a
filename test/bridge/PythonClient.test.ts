import { spawn } from "node:child_process"
import { join } from "node:path"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { ensurePythonSdk, PYTHON_SDK_VERSION } from "../support/conformance/PythonSdk.ts"
import { eventually } from "../support/RawRequests.ts"
import { DBDESK_MCP } from "./BridgeHarness.ts"

/**
 * The official Python SDK (`mcp` from PyPI, installed into .cache/tools) as a stdio host of `dbdesk-mcp`: a client
 * we did not write, in both eras, against the real server (one for the file).
 */
let server: ApprovalServer
let python: string
beforeAll(async () => {
  ;[python, server] = await Promise.all([ensurePythonSdk(), startApprovalServer()])
  server.script = () => "approved"
}, 600_000)
afterAll(() => server?.stop())

const registrySize = () => Effect.runPromise(Context.get(server.context, RequestRegistry).size)

/** Runs test/bridge/python_client.py; after its cancel step, `afterCancel` runs before the script may go on. */
const runPythonClient = (mode: string, afterCancel: () => Promise<void>) =>
  new Promise<{ code: number | null; events: Array<any>; stderr: string }>((resolve, reject) => {
    const script = join(import.meta.dirname, "python_client.py")
    const child = spawn(python, [script, process.execPath, DBDESK_MCP, server.home, server.connectionId, mode], {
      stdio: ["pipe", "pipe", "pipe"]
    })
    const events: Array<any> = []
    let stdout = ""
    let stderr = ""
    const timer = setTimeout(() => child.kill("SIGKILL"), 50_000)
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const lines = stdout.split("\n")
      stdout = lines.pop() ?? ""
      for (const line of lines) {
        const event = JSON.parse(line)
        events.push(event)
        if (event.step === "cancelled") void afterCancel().then(() => child.stdin.write("go\n"), reject)
      }
    })
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, events, stderr })
    })
  })

describe(`the official Python SDK ${PYTHON_SDK_VERSION} over the stdio bridge`, () => {
  it.each([["auto", "2026-07-28"], ["legacy", "2025-11-25"]])(
    "C1-c mode %s (%s): listen() where the era has it, a tool call with progress, and a cancel that stops the query upstream",
    async (mode, protocol) => {
      const run = await runPythonClient(mode, async () => {
        // The session is still open: only the forwarded notifications/cancelled can have ended the query.
        expect(await eventually(async () => (await registrySize()) === 0)).toBe(true)
      })
      expect(run.code, run.stderr).toBe(0)
      const step = (name: string) => run.events.find((event) => event.step === name)
      expect(step("connected")).toEqual({ step: "connected", protocol })
      // A 2025-era session has no listen (the SDK refuses it itself); the modern one is acknowledged through the bridge.
      expect(step("listen")).toEqual(
        mode === "legacy" ? undefined : { step: "listen", honored: { resourcesListChanged: true } }
      )
      expect(step("call")).toEqual({ step: "call", rows: [[60]], is_error: false, progress: [0, 0.3, 1] })
      expect(run.events.map((event) => event.step)).toContain("cancelled")
      expect(step("after")).toEqual({ step: "after", rows: [[1]] })
    }
  )
})
