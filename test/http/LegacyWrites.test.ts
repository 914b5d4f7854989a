import { Client as Client1125 } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as Transport1125 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Client as Client0618 } from "mcp-sdk-2025-06-18/client/index.js"
import { StreamableHTTPClientTransport as Transport0618 } from "mcp-sdk-2025-06-18/client/streamableHttp.js"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"

let server: ApprovalServer
beforeAll(async () => {
  server = await startApprovalServer()
})
afterAll(() => server.stop())
beforeEach(() => {
  server.asked.length = 0
  server.script = () => "approved"
})

const productName = (id: number) => server.rows(`SELECT name FROM products WHERE id = ${id}`)[0]?.name

/** Both legacy clients declare elicitation: the legacy era has no input_required, so the app dialog decides anyway. */
const clients = [
  {
    revision: "2025-11-25",
    productId: 21,
    connect: async (token: string) => {
      const client = new Client1125({ name: "legacy-writer-1125", version: "1.0.0" }, {
        capabilities: { elicitation: {} }
      })
      await client.connect(
        new Transport1125(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
      )
      return client
    }
  },
  {
    revision: "2025-06-18",
    productId: 22,
    connect: async (token: string) => {
      const client = new Client0618({ name: "legacy-writer-0618", version: "1.0.0" }, {
        capabilities: { elicitation: {} }
      })
      const transport = new Transport0618(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } }
      })
      await client.connect(transport as unknown as Parameters<typeof client.connect>[0])
      return client
    }
  }
] as const

describe.each(clients)("writes from the official $revision client", ({ revision, productId, connect }) => {
  it(`C3.1-a C4.3-c the ${revision} client's write waits for the app dialog and proceeds once approved`, async () => {
    const client = await connect(await server.tokenFor("readWrite"))
    try {
      const name = `Legacy ${revision}`
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: {
          connection_id: server.connectionId,
          query: `UPDATE products SET name = '${name}' WHERE id = ${productId}`
        }
      })
      expect(result.isError).toBe(false)
      expect(result).not.toHaveProperty("resultType")
      expect(result).not.toHaveProperty("inputRequests")
      expect(server.asked).toHaveLength(1)
      expect(server.asked[0]).toMatchObject({ kind: "statement" })
      // C2.2-d: the dialog names the legacy client by the clientInfo its initialize sent.
      expect(server.asked[0]!.client).toMatch(/^legacy-writer-/)
      expect(productName(productId)).toBe(name)
    } finally {
      await client.close()
    }
  })

  it(`C3.1-f the ${revision} client's write refused in the app dialog is a denied tool error and writes nothing`, async () => {
    server.script = () => "denied"
    const client = await connect(await server.tokenFor("readWrite"))
    try {
      const before = productName(productId + 10)
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: {
          connection_id: server.connectionId,
          query: `UPDATE products SET name = 'Refused' WHERE id = ${productId + 10}`
        }
      })
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toMatch(/^denied/)
      expect(productName(productId + 10)).toBe(before)
    } finally {
      await client.close()
    }
  })
})
