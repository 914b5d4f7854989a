import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

const discover = (params: Record<string, unknown> = {}) => postMcp(server.url, modernRequest("server/discover", params))

describe("server/discover", () => {
  it("C2.5-a C9-c supportedVersions is the live list of revisions served", async () => {
    const response = await discover()
    expect(response.status).toBe(200)
    expect(response.json.result.supportedVersions).toContain("2026-07-28")
    expect(response.json.result.supportedVersions).not.toContain("2025-03-26")
  })

  it("C2.5-b capabilities are exactly those of the contract", async () => {
    const response = await discover()
    expect(response.json.result.capabilities).toStrictEqual({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: false },
      completions: {},
      extensions: {}
    })
  })

  it("C2.5-c C1-e instructions and serverInfo with title and websiteUrl", async () => {
    const { result } = (await discover()).json
    expect(result.instructions).toMatch(/list_connections/)
    expect(result.instructions).toMatch(/describe_table/)
    expect(result.instructions).toMatch(/refusal is the user's policy/)
    const info = result._meta["io.modelcontextprotocol/serverInfo"]
    expect(info).toMatchObject({ name: "dbdesk", title: "dbdesk" })
    expect(typeof info.version).toBe("string")
    expect(info.websiteUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(typeof result._meta["dev.dbdesk/instanceId"]).toBe("string")
  })

  it("C2.4-a C2.4-c the result carries resultType complete and serverInfo name and version", async () => {
    const { result } = (await discover()).json
    expect(result.resultType).toBe("complete")
    expect(result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("dbdesk")
    expect(result.ttlMs).toBe(3_600_000)
    expect(result.cacheScope).toBe("public")
  })

  it("C4.3-e server/discover takes only _meta and needs no token", async () => {
    const response = await postMcp(server.url, modernRequest("server/discover"), { authorization: undefined })
    expect(response.status).toBe(200)
    expect(response.json.result.resultType).toBe("complete")
  })

  it("C1-d the official 2.4.0 client pinned to 2026-07-28 connects through its discover probe", async () => {
    const client = new Client({ name: "dbdesk-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    try {
      expect(client.getProtocolEra()).toBe("modern")
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      expect(client.getServerVersion()?.name).toBe("dbdesk")
      expect(client.getInstructions()).toMatch(/list_connections/)
    } finally {
      await client.close()
    }
  })

  it("C1-a the server listens on 127.0.0.1 and only /mcp exists", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const other = await fetch(server.url.replace(/\/mcp$/, "/other"), { method: "POST" })
    expect(other.status).toBe(404)
  })
})
