import { Context, Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { SettingsStore } from "../../src/services/Settings.ts"
import { startApprovalServer, type ApprovalServer } from "../support/ApprovalServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

let server: ApprovalServer
let askingId: string
beforeAll(async () => {
  server = await startApprovalServer()
  const added = await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Asks first",
      type: "sqlite",
      path: server.samplePath,
      externalAccess: "readOnly",
      aiPolicy: "askEachTime",
      confirmQueries: "writes"
    })
  )
  askingId = added.id
})
afterAll(() => server.stop())
beforeEach(() => {
  server.asked.length = 0
})

const count = (token: string) =>
  postMcp(
    server.url,
    modernRequest("tools/call", {
      name: "count_rows",
      arguments: { connection_id: askingId, table: "products" },
      _meta: { "io.modelcontextprotocol/clientInfo": { name: "grant-client", version: "2.0" } }
    }),
    { authorization: `Bearer ${token}` }
  )

describe("the connection access dialog of AI policy askEachTime (D-29)", () => {
  it("C5-h a refusal answers -33007 and blocks re-asking for 60 s; an approval is remembered once per connection", async () => {
    const token = await server.tokenFor("readOnly")
    server.script = () => "denied"
    const refused = await count(token)
    expect(refused.status).toBe(403)
    expect(refused.json.error).toMatchObject({ code: -33007, data: { reason: "user_refused_access" } })
    expect(server.asked).toHaveLength(1)
    expect(server.asked[0]).toMatchObject({
      kind: "connection_access",
      message: "grant-client wants to access 'Asks first'"
    })
    const cooling = await count(token)
    expect(cooling.json.error.code).toBe(-33007)
    expect(server.asked).toHaveLength(1)

    const other = await server.tokenFor("readOnly")
    server.script = () => "approved"
    expect((await count(other)).json.result.structuredContent.row_count).toBe(60)
    expect((await count(other)).json.result.structuredContent.row_count).toBe(60)
    expect(server.asked).toHaveLength(2)
  })

  it("C5-h everyTime asks on every call; alwaysApprove never asks", async () => {
    const settings = Context.get(server.context, SettingsStore)
    const token = await server.tokenFor("readOnly")
    server.script = () => "approved"
    await Effect.runPromise(settings.update({ mcp: { connectionApproval: "everyTime" } }))
    await count(token)
    await count(token)
    expect(server.asked).toHaveLength(2)
    await Effect.runPromise(settings.update({ mcp: { connectionApproval: "alwaysApprove" } }))
    await count(token)
    expect(server.asked).toHaveLength(2)
    await Effect.runPromise(settings.update({ mcp: { connectionApproval: "oncePerConnection" } }))
  })
})
