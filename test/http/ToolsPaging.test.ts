import { Effect, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defineTool, toolResult } from "../../src/services/tools/Tool.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

/** 120 host tools next to the built-in ones: enough for three pages of 50. */
const extraTools = Array.from({ length: 120 }, (_, index) =>
  defineTool({
    name: `host_tool_${String(index).padStart(3, "0")}`,
    title: `Host tool ${index}`,
    description: "A tool an embedding host added",
    arguments: Schema.Struct({}),
    scopes: [],
    readOnly: true,
    prepare: () => Effect.succeed(Effect.succeed(toolResult({ index })))
  }))

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ token: "fullAccess", extraTools })
})
afterAll(() => server.stop())

describe("tools/list paging (wire contract §4.5)", () => {
  it("C4.5-a C8-e C2.4-d pages of at most 50, nextCursor only while more remain: every tool exactly once, in name order", async () => {
    const names: Array<string> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const response = await postMcp(
        server.url,
        modernRequest("tools/list", cursor === undefined ? {} : { cursor }, pages),
        { authorization: `Bearer ${server.token}` }
      )
      const result = response.json.result
      expect(result.tools.length).toBeLessThanOrEqual(50)
      expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: "private" })
      names.push(...result.tools.map((tool: { name: string }) => tool.name))
      cursor = result.nextCursor
      if (cursor !== undefined) expect(result.tools).toHaveLength(50)
      else expect("nextCursor" in result).toBe(false)
      pages++
    } while (cursor !== undefined && pages < 10)
    expect(pages).toBe(3)
    expect(new Set(names).size).toBe(names.length)
    expect(names.filter((name) => name.startsWith("host_tool_"))).toHaveLength(120)
    expect(names).toContain("execute_query")
    expect(names).toStrictEqual([...names].sort())
  })

  it("C4.5-b a tools/list cursor is refused by resources/list", async () => {
    const first = await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${server.token}` })
    const misused = await postMcp(
      server.url,
      modernRequest("resources/list", { cursor: first.json.result.nextCursor }),
      { authorization: `Bearer ${server.token}` }
    )
    expect(misused.status).toBe(400)
    expect(misused.json.error.code).toBe(-32602)
  })

  it("C4.5-a the official 2.4.0 client walks all three pages", async () => {
    const client = await connectModernClient(server.url, { token: server.token! })
    try {
      const { tools } = await client.listTools()
      expect(tools.filter((tool) => tool.name.startsWith("host_tool_"))).toHaveLength(120)
    } finally {
      await client.close()
    }
  })
})
