import { Context, Effect } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import { Connections } from "../../src/services/Connections.ts"
import { RequestRegistry } from "../../src/services/RequestRegistry.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let sampleId: string
beforeAll(async () => {
  server = await startTestServer()
  sampleId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
})
afterAll(() => server.stop())

const tokens = () => Context.get(server.context, Tokens)
const mint = async (access: AccessLevel, extra: { connections?: ReadonlyArray<string>; expiresAt?: Date } = {}) =>
  Effect.runPromise(
    tokens().create({ name: access, access, connections: extra.connections ?? "all", expiresAt: extra.expiresAt })
  )
const bearer = (value: string) => ({ authorization: `Bearer ${value}` })
const call = (value: string | undefined, name: string, args: Record<string, unknown>, id: string | number = 1) =>
  postMcp(
    server.url,
    modernRequest("tools/call", { name, arguments: args }, id),
    value === undefined ? {} : bearer(value)
  )

describe("authentication (wire contract §5 points 1–4)", () => {
  it("C5-a C4.3-a methods needing no scope work without a token; every other method needs one", async () => {
    expect((await postMcp(server.url, modernRequest("server/discover"))).status).toBe(200)
    for (const method of ["tools/list", "resources/list", "prompts/list", "resources/templates/list"]) {
      const response = await postMcp(server.url, modernRequest(method))
      expect([method, response.status, response.json.error.code]).toStrictEqual([method, 401, -33009])
    }
  })

  it("C5-b C4.2-h a missing token gives 401 -33009 with WWW-Authenticate: Bearer realm=\"dbdesk\"", async () => {
    const response = await postMcp(server.url, modernRequest("tools/list"))
    expect(response.status).toBe(401)
    expect(response.json.error.code).toBe(-33009)
    expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="dbdesk"`)
  })

  it("C5-c an unknown token, another scheme, and a revoked token give 401 -33009 with Bearer error=\"invalid_token\"", async () => {
    const { token, value } = await mint("readOnly")
    expect((await postMcp(server.url, modernRequest("tools/list"), bearer(value))).status).toBe(200)
    await Effect.runPromise(tokens().revoke(token.id))
    for (const authorization of [`Bearer dbd_${"A".repeat(43)}`, "Basic dXNlcjpwYXNz", `Bearer ${value}`]) {
      const response = await postMcp(server.url, modernRequest("tools/list"), { authorization })
      expect(response.status).toBe(401)
      expect(response.json.error.code).toBe(-33009)
      expect(response.headers.get("www-authenticate")).toBe(`Bearer error="invalid_token"`)
    }
  })

  it("C5-d an expired token gives 401 -33008 with Bearer error=\"invalid_token\", error_description=\"token expired\"", async () => {
    const { value } = await mint("readWrite", { expiresAt: new Date(Date.now() - 1000) })
    const response = await postMcp(server.url, modernRequest("tools/list"), bearer(value))
    expect(response.status).toBe(401)
    expect(response.json.error.code).toBe(-33008)
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer error="invalid_token", error_description="token expired"`
    )
  })

  it("C5-a a presented token is validated even for a method needing no scope", async () => {
    const response = await postMcp(server.url, modernRequest("server/discover"), bearer(`dbd_${"B".repeat(43)}`))
    expect(response.status).toBe(401)
  })

  it("C5-g with mcp.requireAuth off, a request without Authorization is the anonymous loopback principal; a presented header is still validated", async () => {
    const open = await startTestServer({ settings: { mcp: { requireAuth: false } } })
    try {
      const listed = await postMcp(open.url, modernRequest("tools/list"))
      expect(listed.status).toBe(200)
      expect(listed.json.result.tools.map((tool: any) => tool.name)).not.toContain("insert_rows")
      const bad = await postMcp(open.url, modernRequest("tools/list"), bearer(`dbd_${"C".repeat(43)}`))
      expect([bad.status, bad.json.error.code, bad.headers.get("www-authenticate")]).toStrictEqual([
        401,
        -33009,
        `Bearer error="invalid_token"`
      ])
    } finally {
      await open.stop()
    }
  })

  it("C5-i revoking a token cancels its in-flight request (-33002) and refuses its next one", async () => {
    const { token, value } = await mint("readWrite")
    const waiting = call(value, "execute_query", {
      connection_id: sampleId,
      query: "INSERT INTO products (name) VALUES ('never')"
    }, "held")
    const registry = Context.get(server.context, RequestRegistry)
    for (let i = 0; i < 200 && (await Effect.runPromise(registry.size)) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await Effect.runPromise(tokens().revoke(token.id))
    const cancelled = await waiting
    expect(cancelled.json.error.code).toBe(-33002)
    expect((await call(value, "list_connections", {})).status).toBe(401)
  })
})

describe("scopes per access level (wire contract §4.3, §5 points 5–7)", () => {
  const expectedTools = {
    readOnly: { has: ["execute_query", "list_connections"], lacks: ["insert_rows", "confirm_destructive_operation"] },
    readWrite: { has: ["execute_query", "insert_rows"], lacks: ["confirm_destructive_operation"] },
    fullAccess: { has: ["execute_query", "insert_rows", "confirm_destructive_operation"], lacks: [] }
  } as const

  for (const level of ["readOnly", "readWrite", "fullAccess"] as const) {
    it(`C5-f C5-g C4.3-a the official client with a ${level} token sees only the tools it may call`, async () => {
      const { value } = await mint(level)
      const client = await connectModernClient(server.url, { token: value })
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name)
        for (const name of expectedTools[level].has) expect(names).toContain(name)
        for (const name of expectedTools[level].lacks) expect(names).not.toContain(name)
        const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
        expect(listed.isError).toBe(false)
        if (level !== "fullAccess") {
          // Measured: client 2.4.0 turns a 403 carrying Bearer error="insufficient_scope" into its InsufficientScopeError.
          const args = { connection_id: sampleId, query: "DROP TABLE products" }
          const refused: any = await client.callTool({ name: "confirm_destructive_operation", arguments: args }).catch((
            error
          ) => error)
          expect(refused.name).toBe("InsufficientScopeError")
          const raw = await call(value, "confirm_destructive_operation", args)
          expect([raw.status, raw.json.error.code, raw.json.error.data.requiredScopes]).toStrictEqual([403, -33007, [
            "tools:read",
            "tools:write",
            "admin"
          ]])
        }
      } finally {
        await client.close()
      }
    })
  }

  it("C5-e a scope failure is 403 -33007 with Bearer error=\"insufficient_scope\" and data.requiredScopes", async () => {
    const { value } = await mint("readOnly")
    const tool = await call(value, "insert_rows", {
      connection_id: sampleId,
      table: "products",
      columns: ["name"],
      rows: [["x"]]
    })
    expect(tool.status).toBe(403)
    expect(tool.json.error).toMatchObject({ code: -33007, data: { requiredScopes: ["tools:read", "tools:write"] } })
    expect(tool.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope"`)
    const write = await call(value, "execute_query", {
      connection_id: sampleId,
      query: "UPDATE products SET name = name WHERE 1 = 0"
    })
    expect(write.status).toBe(403)
    expect(write.json.error).toMatchObject({ code: -33007, data: { requiredScopes: ["tools:read", "tools:write"] } })
    expect(write.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope"`)
    expect(
      (await call(value, "execute_query", { connection_id: sampleId, query: "SELECT count(*) FROM products" })).json
        .result.isError
    ).toBe(false)
  })
})

describe("connection gates (wire contract §5 point 8, D-12)", () => {
  const addConnection = (name: string, settings: Record<string, string>) =>
    Effect.runPromise(
      Context.get(server.context, Connections).add(
        { name, type: "sqlite", path: join(server.home, "sample.db"), ...settings } as any
      )
    )

  it("C5-h blocked, AI policy never and a token allowlist hide a connection and refuse calls naming it with -33007 and data.reason", async () => {
    const blocked = await addConnection("Blocked", { externalAccess: "blocked", aiPolicy: "alwaysAllow" })
    const never = await addConnection("Never", { externalAccess: "readWrite", aiPolicy: "never" })
    const elsewhere = await addConnection("Elsewhere", { externalAccess: "readWrite", aiPolicy: "alwaysAllow" })
    const all = await mint("fullAccess")
    const limited = await mint("fullAccess", { connections: [sampleId] })
    const visible = async (value: string) =>
      (await call(value, "list_connections", {})).json.result.structuredContent.connections.map((c: any) => c.id)
    expect(await visible(all.value)).toEqual(expect.arrayContaining([sampleId, elsewhere.id]))
    expect(await visible(all.value)).not.toEqual(expect.arrayContaining([blocked.id]))
    expect(await visible(all.value)).not.toEqual(expect.arrayContaining([never.id]))
    expect(await visible(limited.value)).toStrictEqual([sampleId])
    for (
      const [value, id, reason] of [[all.value, blocked.id, "external_access_blocked"], [
        all.value,
        never.id,
        "ai_policy_never"
      ], [limited.value, elsewhere.id, "token_allowlist"]] as const
    ) {
      const refused = await call(value, "list_tables", { connection_id: id })
      expect(refused.status).toBe(403)
      expect(refused.json.error).toMatchObject({ code: -33007, data: { reason } })
    }
  })

  it("C5-h effective access is the lower of token and connection: external access readOnly refuses a write even to fullAccess", async () => {
    const readOnly = await addConnection("Read only", { externalAccess: "readOnly", aiPolicy: "alwaysAllow" })
    const { value } = await mint("fullAccess")
    const refused = await call(value, "execute_query", {
      connection_id: readOnly.id,
      query: "DELETE FROM products WHERE id = -1"
    })
    expect(refused.status).toBe(403)
    expect(refused.json.error).toMatchObject({ code: -33007, data: { reason: "external_access_read_only" } })
    expect((await call(value, "execute_query", { connection_id: readOnly.id, query: "SELECT 1" })).json.result.isError)
      .toBe(false)
  })
})
