import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sseMessages } from "../support/McpClients.ts"
import { modernRequest, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

describe("subscriptions/listen without a valid token (D-50)", () => {
  it("C6-d C5-a with auth on, an unknown token gets the acknowledgement honouring nothing, then the graceful result", async () => {
    for (const authorization of ["Bearer dbd_not-a-real-token", undefined]) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
          ...(authorization === undefined ? {} : { authorization })
        },
        body: JSON.stringify(
          modernRequest("subscriptions/listen", { notifications: { resourcesListChanged: true } }, "listen-x")
        )
      })
      expect(response.status).toBe(200)
      const messages = sseMessages(await response.text())
      expect(messages[0]).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen-x" } }
      })
      expect(messages[0].params.notifications.resourcesListChanged ?? false).toBe(false)
      expect(messages.at(-1)).toMatchObject({ id: "listen-x", result: { resultType: "complete" } })
    }
  })
})
