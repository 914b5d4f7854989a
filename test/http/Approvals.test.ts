import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

let server: ApprovalServer
beforeAll(async () => {
  server = await startApprovalServer()
})
afterAll(() => server.stop())
beforeEach(() => {
  server.asked.length = 0
  server.script = () => "approved"
})

const elicitingClient = async (
  token: string,
  answer: "accept" | "decline" | "reject-flag",
  capabilities: Record<string, unknown> = { elicitation: { form: {} } }
) => {
  const client = new Client({ name: "approval-tests", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities
  })
  const seen: Array<any> = []
  client.setRequestHandler("elicitation/create", async (request: any) => {
    seen.push(request.params)
    if (answer === "decline") return { action: "decline" }
    return { action: "accept", content: { approved: answer === "accept" } }
  })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } }
    })
  )
  return { client, seen }
}

const plainClient = async (token: string, capabilities: Record<string, unknown> = {}) => {
  const client = new Client({ name: "approval-tests", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities
  })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } }
    })
  )
  return client
}

const productName = (id: number) => server.rows(`SELECT name FROM products WHERE id = ${id}`)[0]?.name

describe("writes with the user's consent (wire contract §3.1)", () => {
  it("C3.1-b C3.1-c C2.6-a C2.6-b C3.1-e with elicitation the official client gets a form, its accepted retry proceeds, and on readWrite the app dialog follows", async () => {
    const { client, seen } = await elicitingClient(await server.tokenFor("readWrite"), "accept")
    try {
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: {
          connection_id: server.connectionId,
          query: "UPDATE products SET name = 'Form-approved' WHERE id = 1"
        }
      })
      expect(result.isError).toBe(false)
      expect(result.structuredContent.rows_affected).toBe(1)
      expect(productName(1)).toBe("Form-approved")
      expect(seen).toHaveLength(1)
      expect(seen[0].mode).toBe("form")
      expect(seen[0].message).toMatch(/^Allow UPDATE on 'Sample \(SQLite\)'\?/)
      expect(seen[0].requestedSchema).toMatchObject({
        type: "object",
        properties: { approved: { type: "boolean" } },
        required: ["approved"]
      })
      expect(seen[0].requestedSchema.properties.approved.title).toEqual(expect.any(String))
      expect(server.asked).toHaveLength(1)
    } finally {
      await client.close()
    }
  })

  it("C3.1-d on a fullAccess token the accepted form replaces the app dialog", async () => {
    const { client } = await elicitingClient(await server.tokenFor("fullAccess"), "accept")
    try {
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Full' WHERE id = 2" }
      })
      expect(result.isError).toBe(false)
      expect(productName(2)).toBe("Full")
      expect(server.asked).toHaveLength(0)
    } finally {
      await client.close()
    }
  })

  it("C3.1-f C2.3-b a declined form or approved:false is the tool error denied and nothing is written", async () => {
    for (const answer of ["decline", "reject-flag"] as const) {
      const before = productName(3)
      const { client } = await elicitingClient(await server.tokenFor("fullAccess"), answer)
      try {
        const result: any = await client.callTool({
          name: "execute_query",
          arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Nope' WHERE id = 3" }
        })
        expect(result.isError).toBe(true)
        expect(result.content[0].text).toBe("denied: the user did not approve this operation")
        expect(productName(3)).toBe(before)
      } finally {
        await client.close()
      }
    }
  })

  it("C3.1-a C2.2-g without elicitation the call blocks on the app dialog until the user answers", async () => {
    server.script = () => "never"
    const client = await plainClient(await server.tokenFor("readWrite"))
    try {
      const call = client.callTool({
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Dialog' WHERE id = 4" }
      })
      for (let i = 0; i < 200 && server.asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(server.asked).toHaveLength(1)
      expect(server.asked[0]).toMatchObject({
        kind: "statement",
        statement: "UPDATE products SET name = 'Dialog' WHERE id = 4",
        connectionName: "Sample (SQLite)"
      })
      expect(productName(4)).not.toBe("Dialog")
      expect(await server.answer(server.asked[0]!.id, "approved")).toBe(true)
      const result: any = await call
      expect(result.isError).toBe(false)
      expect(productName(4)).toBe("Dialog")
    } finally {
      await client.close()
    }
  })

  it("C2.2-g a client declaring only elicitation.url gets the app dialog, not a form", async () => {
    const { client, seen } = await elicitingClient(await server.tokenFor("readWrite"), "accept", {
      elicitation: { url: {} }
    })
    try {
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Url only' WHERE id = 5" }
      })
      expect(result.isError).toBe(false)
      expect(seen).toHaveLength(0)
      expect(server.asked).toHaveLength(1)
    } finally {
      await client.close()
    }
  })

  it("C3.1-f an app dialog answered no is denied and writes nothing", async () => {
    server.script = () => "denied"
    const before = productName(6)
    const client = await plainClient(await server.tokenFor("readWrite"))
    try {
      const result: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Refused' WHERE id = 6" }
      })
      expect(result.content[0].text).toBe("denied: the user did not approve this operation")
      expect(productName(6)).toBe(before)
    } finally {
      await client.close()
    }
  })
})

describe("requestState and the repeated call (raw HTTP)", () => {
  const elicitMeta = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } }
  const update = (id: number, name: string) => ({
    connection_id: server.connectionId,
    query: `UPDATE products SET name = '${name}' WHERE id = ${id}`
  })
  const first = async (token: string, args: Record<string, unknown>) => {
    const response = await postMcp(
      server.url,
      modernRequest("tools/call", { name: "execute_query", arguments: args, _meta: elicitMeta }, 1),
      { authorization: `Bearer ${token}` }
    )
    expect(response.json.result.resultType).toBe("input_required")
    return response.json.result
  }
  const retry = (
    token: string,
    args: Record<string, unknown>,
    requestState: string,
    approved = true,
    id: number | string = 2
  ) =>
    postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: args,
        requestState,
        inputResponses: { approve_statement: { action: "accept", content: { approved } } },
        _meta: elicitMeta
      }, id),
      { authorization: `Bearer ${token}` }
    )

  it("C2.6-c C8-e C3.1-j the form carries the statement verbatim with line breaks, cut at 2,000 characters, and no cache hints", async () => {
    const token = await server.tokenFor("fullAccess")
    const longQuery = `UPDATE products\nSET name = '${"x".repeat(2500)}'\nWHERE id = 7`
    const result = await first(token, { connection_id: server.connectionId, query: longQuery })
    const description = result.inputRequests.approve_statement.params.requestedSchema.properties.approved.description
    expect(description).toBe(longQuery.slice(0, 2000))
    expect(description).toContain("\nSET name")
    expect(result.inputRequests.approve_statement.method).toBe("elicitation/create")
    expect(typeof result.requestState).toBe("string")
    expect(result.ttlMs).toBeUndefined()
    expect(result.cacheScope).toBeUndefined()
  })

  it("C3.1-g C3.1-i changed arguments, a tampered state, another principal or a replay are -32602", async () => {
    const token = await server.tokenFor("fullAccess")
    const args = update(8, "Once")
    const { requestState } = await first(token, args)
    const changed = await retry(token, update(8, "Other"), requestState)
    expect(changed.status).toBe(400)
    expect(changed.json.error.code).toBe(-32602)
    const flipped = requestState.slice(0, -2) + (requestState.at(-2) === "A" ? "B" : "A") + requestState.at(-1)
    expect((await retry(token, args, flipped)).json.error.code).toBe(-32602)
    const otherToken = await server.tokenFor("fullAccess")
    expect((await retry(otherToken, args, requestState)).json.error.code).toBe(-32602)
    expect(productName(8)).not.toBe("Once")
    const accepted = await retry(token, args, requestState)
    expect(accepted.json.result.isError).toBe(false)
    expect(productName(8)).toBe("Once")
    const replay = await retry(token, args, requestState, true, 3)
    expect(replay.json.error.code).toBe(-32602)
  })

  it("C3.1-e a readOnly token reading on a confirm-all connection meets the form and then the app dialog", async () => {
    const { Context, Effect } = await import("effect")
    const { Connections } = await import("../../src/services/Connections.ts")
    const production = await Effect.runPromise(
      Context.get(server.context, Connections).add({
        name: "Production copy",
        type: "sqlite",
        path: server.samplePath,
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow",
        confirmQueries: "all"
      })
    )
    const token = await server.tokenFor("readOnly")
    const args = { connection_id: production.id, query: "SELECT count(*) AS n FROM orders" }
    const { requestState } = await first(token, args)
    expect(server.asked).toHaveLength(0)
    const accepted = await retry(token, args, requestState)
    expect(accepted.json.result.structuredContent.rows).toStrictEqual([[1200]])
    expect(server.asked).toHaveLength(1)
  })
})

describe("destructive statements", () => {
  it("C7.2-a DROP through execute_query is denied with the pointer; through confirm_destructive_operation readWrite lacks admin; fullAccess runs it after consent", async () => {
    server.rows("SELECT 1")
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(server.samplePath)
    db.exec("CREATE TABLE IF NOT EXISTS scratch (id INTEGER)")
    db.close()
    const readWrite = await server.tokenFor("readWrite")
    const viaExecute = await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: server.connectionId, query: "DROP TABLE scratch" }
      }),
      { authorization: `Bearer ${readWrite}` }
    )
    expect(viaExecute.json.result.content[0].text).toBe(
      "denied: this statement drops or truncates data; use confirm_destructive_operation"
    )
    const noAdmin = await postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "confirm_destructive_operation",
        arguments: { connection_id: server.connectionId, query: "DROP TABLE scratch" }
      }),
      { authorization: `Bearer ${readWrite}` }
    )
    expect(noAdmin.status).toBe(403)
    expect(noAdmin.json.error.code).toBe(-33007)
    expect(noAdmin.json.error.data.requiredScopes).toContain("admin")
    const { client } = await elicitingClient(await server.tokenFor("fullAccess"), "accept")
    try {
      const result: any = await client.callTool({
        name: "confirm_destructive_operation",
        arguments: { connection_id: server.connectionId, query: "DROP TABLE scratch" }
      })
      expect(result.isError).toBe(false)
      expect(server.rows("SELECT name FROM sqlite_master WHERE name = 'scratch'")).toHaveLength(0)
      const notDestructive: any = await client.callTool({
        name: "confirm_destructive_operation",
        arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = name" }
      })
      expect(notDestructive.content[0].text).toBe(
        "invalid_argument: this statement is not destructive: use execute_query"
      )
    } finally {
      await client.close()
    }
  })

  it("C3.1-c insert_rows shows the parameterised SQL with the first rows and inserts after approval", async () => {
    const { client, seen } = await elicitingClient(await server.tokenFor("readWrite"), "accept")
    try {
      const result: any = await client.callTool({
        name: "insert_rows",
        arguments: {
          connection_id: server.connectionId,
          table: "products",
          columns: ["sku", "name", "price", "category"],
          rows: [["T-1", "Inserted A", 1.5, "test"], ["T-2", "Inserted B", 2, "test"]]
        }
      })
      expect(result.isError).toBe(false)
      expect(result.structuredContent).toMatchObject({ rows_affected: 2, failed_rows: [] })
      const description = seen[0].requestedSchema.properties.approved.description
      expect(description).toMatch(
        /^INSERT INTO "products" \("sku", "name", "price", "category"\) VALUES \(\?, \?, \?, \?\)/
      )
      expect(description).toContain("('T-1', 'Inserted A', 1.5, 'test')")
      expect(server.rows("SELECT count(*) AS n FROM products WHERE name LIKE 'Inserted %'")[0].n).toBe(2)
    } finally {
      await client.close()
    }
  })
})

describe("a client that leaves while the dialog waits", () => {
  it("C3.2-d a dropped client ends the wait: the dialog is withdrawn and nothing is written", async () => {
    server.script = () => "never"
    const token = await server.tokenFor("readWrite")
    const before = productName(9)
    const controller = new AbortController()
    const body = modernRequest("tools/call", {
      name: "execute_query",
      arguments: { connection_id: server.connectionId, query: "UPDATE products SET name = 'Abandoned' WHERE id = 9" }
    }, 9)
    const pending = fetch(server.url, {
      method: "POST",
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "execute_query",
        authorization: `Bearer ${token}`
      },
      body: JSON.stringify(body)
    }).catch((error: unknown) => error)
    for (let i = 0; i < 200 && server.asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(server.asked).toHaveLength(1)
    controller.abort()
    await pending
    const { Context, Effect } = await import("effect")
    const { Approvals } = await import("../../src/services/Approvals.ts")
    const approvals = Context.get(server.context, Approvals)
    let open = 1
    for (let i = 0; i < 200 && open > 0; i++) {
      open = (await Effect.runPromise(approvals.list)).length
      if (open > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(open).toBe(0)
    expect(await server.answer(server.asked[0]!.id, "approved")).toBe(false)
    expect(productName(9)).toBe(before)
  })
})
