import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { busyProcess, childrenOf } from "../support/RawRequests.ts"
import { tempHome } from "../support/TestServer.ts"

const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")
const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

describe("graceful shutdown (issue: requests in flight)", () => {
  it(
    "C3.2-a SIGTERM during a long query: the client still gets its answer, the process exits and the handshake file is gone",
    async () => {
      const home = tempHome()
      const child = spawn(process.execPath, [bin, "serve", "--port", "0"], {
        env: { ...process.env, DBDESK_HOME: home },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (chunk) => (output += chunk))
      child.stderr.on("data", (chunk) => (output += chunk))
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      try {
        for (let i = 0; i < 400 && !/dbd_[A-Za-z0-9_-]{43}/.test(output); i++) {
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        const token = /(dbd_[A-Za-z0-9_-]{43})/.exec(output)?.[1]
        expect(token).toBeDefined()
        const handshake = JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8"))
        const connections = JSON.parse(readFileSync(join(home, "connections.json"), "utf8"))
        const url = `http://127.0.0.1:${handshake.port}/mcp`
        const body = {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "execute_query",
            arguments: { connection_id: connections.connections[0].id, query: ENDLESS, timeout_seconds: 120 },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {}
            }
          }
        }
        const answer = fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "execute_query",
            authorization: `Bearer ${token}`
          },
          body: JSON.stringify(body)
        }).then(async (response) => ({ status: response.status, json: await response.json() }))
        // SIGTERM once the query runs: the server's SQLite child is visibly at work on it.
        await busyProcess(() => childrenOf(child.pid!)[0], 5, "the SQLite child of serve running the query")
        child.kill("SIGTERM")
        const response = await answer
        expect(response.status).toBe(200)
        expect(response.json).toMatchObject({ id: 1, error: { code: -33002 } })
        expect(await exited).not.toBeNull()
        expect(existsSync(join(home, "mcp-handshake.json"))).toBe(false)
      } finally {
        child.kill("SIGKILL")
      }
    },
    60_000
  )
})
