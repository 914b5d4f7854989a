import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Tokens } from "../../src/services/Tokens.ts"
import { postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const legacyPost = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  postMcp(url, body, { "mcp-method": undefined, "mcp-name": undefined, ...headers })

const initialize = async (url: string, headers: Record<string, string> = {}) => {
  const response = await legacyPost(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
  }, headers)
  const sessionId = response.headers.get("mcp-session-id")
  if (sessionId === null) throw new Error(`initialize failed: ${response.status} ${response.text}`)
  return sessionId
}

const request = (method: string, id = 1) => ({ jsonrpc: "2.0", id, method, params: {} })

describe("sessions are bound to the principal of initialize (authentication on)", () => {
  let server: TestServer
  let alice: string
  let bob: string
  beforeAll(async () => {
    server = await startTestServer({ settings: { mcp: { requireAuth: true } } })
    const tokens = Context.get(server.context as Context.Context<Tokens>, Tokens)
    alice = (await Effect.runPromise(tokens.create({ name: "alice", access: "readOnly", connections: "all" }))).value
    bob = (await Effect.runPromise(tokens.create({ name: "bob", access: "readOnly", connections: "all" }))).value
  })
  afterAll(() => server.stop())

  it("C3.3-c C3.3-d C5-i a session answers the token that created it; another token or no token gets 404 -33001 and the session survives", async () => {
    const asAlice = { authorization: `Bearer ${alice}` }
    const sessionId = await initialize(server.url, asAlice)
    const own = await legacyPost(server.url, request("tools/list"), { ...asAlice, "mcp-session-id": sessionId })
    expect(own.status).toBe(200)
    expect(own.json.result.tools.length).toBeGreaterThan(0)

    const foreign = await legacyPost(server.url, request("tools/list", 2), {
      authorization: `Bearer ${bob}`,
      "mcp-session-id": sessionId
    })
    expect(foreign.status).toBe(404)
    expect(foreign.json.error.code).toBe(-33001)
    const anonymous = await legacyPost(server.url, request("ping", 3), { "mcp-session-id": sessionId })
    expect(anonymous.status).toBe(404)
    expect(anonymous.json.error.code).toBe(-33001)

    const again = await legacyPost(server.url, request("ping", 4), { ...asAlice, "mcp-session-id": sessionId })
    expect(again.json.result).toStrictEqual({})
  })

  it("C3.3-d C3.3-f a foreign session id gets exactly the answer of an unknown one", async () => {
    const sessionId = await initialize(server.url, { authorization: `Bearer ${alice}` })
    const foreign = await legacyPost(server.url, request("ping", 5), {
      authorization: `Bearer ${bob}`,
      "mcp-session-id": sessionId
    })
    const unknown = await legacyPost(server.url, request("ping", 5), {
      authorization: `Bearer ${bob}`,
      "mcp-session-id": "x".repeat(43)
    })
    expect(foreign.status).toBe(unknown.status)
    expect(foreign.json).toStrictEqual(unknown.json)
  })
})

describe("sessions counted per principal (D-45; wire contract §3.3, D-45)", () => {
  it("C3.3-e an anonymous caller cannot evict a token's sessions: with 16 held, its initialize is 503 -33000 with Retry-After and every session still answers", async () => {
    const server = await startTestServer({ settings: { mcp: { requireAuth: true } } })
    try {
      const tokens = Context.get(server.context as Context.Context<Tokens>, Tokens)
      const owner = {
        authorization: `Bearer ${
          (await Effect.runPromise(tokens.create({ name: "owner", access: "readWrite", connections: "all" }))).value
        }`
      }
      const ids: Array<string> = []
      for (let i = 0; i < 16; i++) ids.push(await initialize(server.url, owner))
      for (let attempt = 0; attempt < 20; attempt++) {
        const refused = await legacyPost(server.url, {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "squatter", version: "1" } }
        })
        expect(refused.status).toBe(503)
        expect(refused.json.error.code).toBe(-33000)
        expect(refused.headers.get("retry-after")).toMatch(/^\d+$/)
        expect(refused.headers.get("mcp-session-id")).toBeNull()
      }
      for (const id of ids) {
        expect((await legacyPost(server.url, request("ping"), { ...owner, "mcp-session-id": id })).status).toBe(200)
      }
      // The owner itself still gets a 17th session, at the cost of its own least recently used one.
      const seventeenth = await initialize(server.url, owner)
      expect((await legacyPost(server.url, request("ping"), { ...owner, "mcp-session-id": seventeenth })).status).toBe(
        200
      )
      expect((await legacyPost(server.url, request("ping"), { ...owner, "mcp-session-id": ids[0]! })).status).toBe(404)
    } finally {
      await server.stop()
    }
  })
})

describe("the session store of a running server", () => {
  it("C3.3-e C3.3-f the 17th initialize evicts the least recently used session, which must initialise again", async () => {
    const server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
    try {
      const ids: Array<string> = []
      for (let i = 0; i < 16; i++) ids.push(await initialize(server.url))
      const touched = await legacyPost(server.url, request("ping"), { "mcp-session-id": ids[0]! })
      expect(touched.status).toBe(200)
      const seventeenth = await initialize(server.url)

      const evicted = await legacyPost(server.url, request("tools/list"), { "mcp-session-id": ids[1]! })
      expect(evicted.status).toBe(404)
      expect(evicted.json.error.code).toBe(-33001)
      for (const alive of [ids[0]!, ids[2]!, ids[15]!, seventeenth]) {
        const response = await legacyPost(server.url, request("ping"), { "mcp-session-id": alive })
        expect(response.status).toBe(200)
      }
      const reopened = await initialize(server.url)
      expect((await legacyPost(server.url, request("ping"), { "mcp-session-id": reopened })).status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  it("C3.3-g a session lasts until the server stops: after a restart its id is unknown", async () => {
    const first = await startTestServer({ settings: { mcp: { requireAuth: false } } })
    const sessionId = await initialize(first.url)
    expect((await legacyPost(first.url, request("ping"), { "mcp-session-id": sessionId })).status).toBe(200)
    await first.stop()
    const second = await startTestServer({ home: first.home, settings: { mcp: { requireAuth: false } } })
    try {
      const response = await legacyPost(second.url, request("ping"), { "mcp-session-id": sessionId })
      expect(response.status).toBe(404)
      expect(response.json.error.code).toBe(-33001)
    } finally {
      await second.stop()
    }
  })
})
