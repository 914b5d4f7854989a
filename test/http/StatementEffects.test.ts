import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { eventually } from "../support/RawRequests.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

let server: ApprovalServer
beforeAll(async () => {
  server = await startApprovalServer()
})
afterAll(() => server.stop())

const clientWith = async (token: string, elicit: boolean) => {
  const client = new Client({ name: "effects", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    ...(elicit ? { capabilities: { elicitation: { form: {} } } } : {})
  })
  if (elicit) {
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { approved: true } }))
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } }
    })
  )
  return client
}

describe("what a statement run through MCP leaves behind (D-47)", () => {
  it("C6-a a CREATE TABLE approved through the scripted dialog sends resources/updated to the schema's subscriber", async () => {
    const listener = await clientWith(await server.tokenFor("readOnly"), false)
    const writer = await clientWith(await server.tokenFor("readWrite"), false)
    const schemaUri = `dbdesk://connections/${server.connectionId}/schema`
    const updated: Array<any> = []
    listener.setNotificationHandler(
      "notifications/resources/updated",
      (notification: any) => void updated.push(notification)
    )
    try {
      const subscription = await listener.listen({ resourceSubscriptions: [schemaUri] })
      expect(subscription.honoredFilter.resourceSubscriptions).toStrictEqual([schemaUri])
      const created: any = await writer.callTool({
        name: "execute_query",
        arguments: {
          connection_id: server.connectionId,
          query: "CREATE TABLE audit_notes (id INTEGER PRIMARY KEY, note TEXT)"
        }
      })
      expect(created.isError).toBe(false)
      expect(server.asked).toHaveLength(1)
      expect(await eventually(() => updated.length > 0)).toBe(true)
      expect(updated[0].params.uri).toBe(schemaUri)
      await subscription.close()
    } finally {
      await listener.close()
      await writer.close()
    }
  })

  it("C6-a execute_query writes the query history the history resource serves, with the outcome of each statement", async () => {
    const token = await server.tokenFor("readOnly")
    await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "SELECT 42 AS answer" }
      }),
      { authorization: `Bearer ${token}` }
    )
    await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "SELECT * FROM missing_table" }
      }),
      { authorization: `Bearer ${token}` }
    )
    const uri = `dbdesk://connections/${server.connectionId}/history?limit=5`
    const read = await postMcp(server.url, modernRequest("resources/read", { uri }), {
      authorization: `Bearer ${token}`
    })
    expect(read.status).toBe(200)
    const entries = JSON.parse(read.json.result.contents[0].text)
    const list = entries.history
    const texts = list.map((entry: any) => [entry.query, entry.outcome, entry.source])
    expect(texts).toContainEqual(["SELECT 42 AS answer", "success", "mcp"])
    expect(texts).toContainEqual(["SELECT * FROM missing_table", "error", "mcp"])
  })
})
