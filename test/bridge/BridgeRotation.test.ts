import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import Database from "better-sqlite3"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Context, Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { PendingApproval } from "../../src/domain/Approval.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Approvals } from "../../src/services/Approvals.ts"
import { Connections } from "../../src/services/Connections.ts"
import { eventually } from "../support/RawRequests.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"
import { DBDESK_MCP } from "./BridgeHarness.ts"

let server: TestServer
const asked: Array<PendingApproval> = []
beforeAll(async () => {
  server = await startTestServer({
    approvalPrompt: ApprovalPrompt.scripted(() => "never", asked),
    bridgeTiming: { rotateEvery: "1 second", overlap: "300 millis" }
  })
})
afterAll(() => server.stop())

const bridgeToken = (): string => JSON.parse(readFileSync(join(server.home, "mcp-handshake.json"), "utf8")).bridgeToken

describe("bridge token rotation while the bridge runs (D-37, D-53)", () => {
  it("C1-b a session survives rotations: a write in flight finishes and later calls pick up the new token from the file", async () => {
    const connection = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!
    const client = new Client({ name: "bridge-rotation-host", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [DBDESK_MCP],
        env: { ...process.env, DBDESK_HOME: server.home },
        stderr: "ignore"
      })
    )
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0)
      const first = bridgeToken()
      const write = client.callTool({
        name: "execute_query",
        arguments: { connection_id: connection.id, query: "UPDATE products SET name = 'Rotated' WHERE id = 41" }
      })
      expect(await eventually(() => asked.length === 1)).toBe(true)

      // Two rotations later the first value is past its 300 ms overlap and removed.
      const seen = new Set([first])
      expect(await eventually(() => seen.add(bridgeToken()).size >= 3)).toBe(true)
      const stale = await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${first}` })
      expect(stale.status).toBe(401)
      expect(stale.json.error.code).toBe(-33009)

      await Effect.runPromise(Context.get(server.context, Approvals).answer(asked[0]!.id, "approved"))
      const written: any = await write
      expect(written.isError).toBe(false)
      const db = new Database(connection.type === "sqlite" ? connection.path : "", { readonly: true })
      try {
        expect(db.prepare("SELECT name FROM products WHERE id = 41").get()).toEqual({ name: "Rotated" })
      } finally {
        db.close()
      }

      const listed = await client.listTools()
      expect(listed.tools.map((tool) => tool.name)).toContain("execute_query")
    } finally {
      await client.close()
    }
  })
})
