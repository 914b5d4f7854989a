import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, readFileSync, statSync, watch } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tempHome } from "../support/TestServer.ts"

const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")
const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

const serve = (home: string) => {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0"], {
    env: { ...process.env, DBDESK_HOME: home },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const waitFor = async (pattern: RegExp) => {
    for (let i = 0; i < 300 && !pattern.test(output); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    return output
  }
  return { child, exited, waitFor, output: () => output }
}

describe("dbdesk serve (D-1)", () => {
  it("C1-b the port is published in mcp-handshake.json (0600) in the support directory, removed at SIGTERM", async () => {
    const home = tempHome()
    const first = serve(home)
    const text = await first.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/)
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)![1]!
    const handshakePath = join(home, "mcp-handshake.json")
    const handshake = JSON.parse(readFileSync(handshakePath, "utf8"))
    expect(url).toBe(`http://127.0.0.1:${handshake.port}/mcp`)
    expect(handshake).toMatchObject({ version: 1, pid: first.child.pid, protocolVersion: "2026-07-28" })
    expect(handshake.instanceId).toMatch(/^[0-9a-f-]{36}$/)
    expect(handshake.uiUrl).not.toMatch(/key=/)
    expect(statSync(handshakePath).mode & 0o777).toBe(0o600)
    first.child.kill("SIGTERM")
    expect(await first.exited).not.toBeNull()
    expect(existsSync(handshakePath)).toBe(false)
  })

  it("a second serve on the same support directory refuses with a clear message and leaves the first one's files untouched", async () => {
    const home = tempHome()
    const first = serve(home)
    await first.waitFor(/listening on/)
    const handshakePath = join(home, "mcp-handshake.json")
    const before = readFileSync(handshakePath, "utf8")
    const second = serve(home)
    expect(await second.exited).toBe(1)
    expect(second.output()).toMatch(/already running \(pid \d+\) at http:\/\/127\.0\.0\.1:\d+\/mcp/)
    expect(readFileSync(handshakePath, "utf8")).toBe(before)
    const response = await fetch(`http://127.0.0.1:${JSON.parse(before).port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover"
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      })
    })
    expect(response.status).toBe(200)
  })

  it("C1-b a stop at any moment of the start leaves no handshake file: right after it is written, and right after listening", async () => {
    // Each stop lands in a window a few milliseconds wide (the write's directory fsync; the rewrite that followed
    // the first write): before the fix about half of these starts left the file behind.
    const handshakeAppears = (home: string) =>
      new Promise<void>((resolve) => {
        const file = join(home, "mcp-handshake.json")
        const watcher = watch(home, () => {
          if (existsSync(file)) {
            watcher.close()
            resolve()
          }
        })
      })
    const stops: Array<{ readonly when: string; readonly left: boolean }> = []
    for (
      const when of [
        "handshake written",
        "handshake written",
        "handshake written",
        "listening",
        "listening",
        "listening"
      ]
    ) {
      const home = tempHome()
      const appears = handshakeAppears(home)
      const server = serve(home)
      await (when === "listening" ? server.waitFor(/listening on/) : appears)
      server.child.kill("SIGTERM")
      expect(await server.exited).toBe(0)
      stops.push({ when, left: existsSync(join(home, "mcp-handshake.json")) })
    }
    expect(stops.filter((stop) => stop.left)).toEqual([])
  })

  it("a stale handshake file (dead pid) is replaced at start", async () => {
    const home = tempHome()
    const { writeFileSync } = await import("node:fs")
    writeFileSync(
      join(home, "mcp-handshake.json"),
      JSON.stringify({
        version: 1,
        port: 1,
        pid: 2 ** 22 + 12345,
        instanceId: "gone",
        protocolVersion: "2026-07-28",
        startedAt: "2020-01-01T00:00:00Z",
        uiUrl: "http://127.0.0.1:1"
      }),
      { mode: 0o600 }
    )
    const server = serve(home)
    await server.waitFor(/listening on/)
    expect(JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8")).pid).toBe(server.child.pid)
  })
})
