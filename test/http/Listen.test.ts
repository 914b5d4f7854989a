import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Subscriptions } from "../../src/services/Subscriptions.ts"
import { MODERN_META, modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
let sampleId: string
let samplePath: string

const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.runPromise(effect as Effect.Effect<A, E, never>)
const subscriptions = () => Context.get(server.context, Subscriptions)
const openCount = () => run(subscriptions().count)
const schemaUri = () => `dbdesk://connections/${sampleId}/schema`

const until = async (condition: () => Promise<boolean> | boolean) => {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error("condition not reached")
}

const connectClient = async () => {
  const client = new Client({ name: "dbdesk-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
  return client
}

/** Opens a listen by hand and returns the frames read so far plus a way to close it. */
const rawListen = async (id: string, notifications: unknown) => {
  const controller = new AbortController()
  const body = modernRequest("subscriptions/listen", { notifications }, id)
  const response = await fetch(server.url, {
    method: "POST",
    signal: controller.signal,
    headers: {
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen"
    },
    body: JSON.stringify(body)
  })
  const reader = response.body!.getReader()
  let text = ""
  const readUntil = async (predicate: (text: string) => boolean) => {
    while (!predicate(text)) {
      const chunk = await reader.read()
      if (chunk.done) break
      text += new TextDecoder().decode(chunk.value)
    }
    return text
  }
  return { response, readUntil, close: () => controller.abort() }
}

beforeAll(async () => {
  server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const [sample] = await run(Context.get(server.context, Connections).list)
  sampleId = sample!.id
  samplePath = (sample as { path: string }).path
})
afterAll(() => server.stop())

describe("subscriptions/listen (D-50, interop §5)", () => {
  it("C6-e the official client gets the ack, resources/updated after a schema change, list_changed after an add, and close() frees the subscription", async () => {
    const client = await connectClient()
    const updated: Array<any> = []
    const listChanged: Array<any> = []
    client.setNotificationHandler("notifications/resources/updated", (notification) => void updated.push(notification))
    client.setNotificationHandler(
      "notifications/resources/list_changed",
      (notification) => void listChanged.push(notification)
    )
    try {
      const subscription = await client.listen({
        resourcesListChanged: true,
        resourceSubscriptions: [schemaUri()],
        toolsListChanged: true,
        promptsListChanged: true
      })
      expect(subscription.honoredFilter).toStrictEqual({
        resourcesListChanged: true,
        resourceSubscriptions: [schemaUri()]
      })
      expect(await openCount()).toBe(1)
      // The lead's approved CREATE TABLE path will call this; the test calls the service directly for now.
      await run(subscriptions().schemaChanged(sampleId))
      await until(() => updated.length === 1)
      expect(updated[0].params.uri).toBe(schemaUri())
      expect(updated[0].params._meta["io.modelcontextprotocol/subscriptionId"]).toMatch(/^listen:/)
      await run(
        Context.get(server.context, Connections).add({
          name: "Added",
          type: "sqlite",
          path: samplePath,
          aiPolicy: "alwaysAllow"
        })
      )
      await until(() => listChanged.length === 1)
      expect(listChanged[0].params._meta["io.modelcontextprotocol/subscriptionId"]).toBe(
        updated[0].params._meta["io.modelcontextprotocol/subscriptionId"]
      )
      await subscription.close()
      expect(await subscription.closed).toBe("local")
      await until(async () => (await openCount()) === 0)
    } finally {
      await client.close()
    }
  })

  it("C6-e the acknowledgement is the first frame, frames are tagged, and no SSE id: field is ever sent", async () => {
    const listen = await rawListen("raw-1", { resourcesListChanged: true })
    expect(listen.response.status).toBe(200)
    expect(listen.response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    await until(async () => (await openCount()) === 1)
    await run(Context.get(server.context, Connections).update(sampleId, { name: "Sample renamed" }))
    const text = await listen.readUntil((text) => text.includes("list_changed"))
    const frames = text.split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) =>
      JSON.parse(frame.slice(6))
    )
    expect(frames[0]).toStrictEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { resourcesListChanged: true },
        _meta: { "io.modelcontextprotocol/subscriptionId": "raw-1" }
      }
    })
    expect(frames[1]).toMatchObject({
      method: "notifications/resources/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "raw-1" } }
    })
    expect(text).not.toMatch(/^id:/m)
    listen.close()
    await until(async () => (await openCount()) === 0)
    await run(Context.get(server.context, Connections).update(sampleId, { name: "Sample (SQLite)" }))
  })

  it("C3.2-f notifications/cancelled naming the listen id ends it with the graceful result", async () => {
    const listen = await rawListen("raw-2", { resourcesListChanged: true })
    await until(async () => (await openCount()) === 1)
    const cancel = await postMcp(server.url, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "raw-2", _meta: MODERN_META }
    })
    expect(cancel.status).toBe(202)
    const text = await listen.readUntil((text) => text.includes("\"result\""))
    expect(text).toContain(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "raw-2",
        result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": "raw-2" } }
      })
    )
    await until(async () => (await openCount()) === 0)
  })

  it("C3.2-b a revoked caller's subscriptions close with the graceful result (closeForPrincipal)", async () => {
    const listen = await rawListen("raw-3", { resourcesListChanged: true })
    await until(async () => (await openCount()) === 1)
    await run(subscriptions().closeForPrincipal("anonymous:127.0.0.1"))
    expect(await listen.readUntil((text) => text.includes("\"result\""))).toContain("\"id\":\"raw-3\"")
    await until(async () => (await openCount()) === 0)
  })

  it("C6-c an empty honoured set gets the ack and the graceful result at once; toolsListChanged is never honoured", async () => {
    const listen = await rawListen("raw-4", {
      toolsListChanged: true,
      resourceSubscriptions: ["dbdesk://connections/nope/schema", `dbdesk://connections/${sampleId}/tables`]
    })
    const text = await listen.readUntil((text) => text.includes("\"result\""))
    expect(text).toContain("\"notifications\":{}")
    expect(await openCount()).toBe(0)
  })

  it("C8-f the 9th open subscription of a caller is 429 -33010 with Retry-After", async () => {
    const open = await Promise.all(
      Array.from({ length: 8 }, (_, index) => rawListen(`cap-${index}`, { resourcesListChanged: true }))
    )
    await until(async () => (await openCount()) === 8)
    const ninth = await postMcp(
      server.url,
      modernRequest("subscriptions/listen", { notifications: { resourcesListChanged: true } }, "cap-8")
    )
    expect(ninth.status).toBe(429)
    expect(ninth.json.error.code).toBe(-33010)
    expect(Number(ninth.headers.get("retry-after"))).toBeGreaterThan(0)
    for (const listen of open) listen.close()
    await until(async () => (await openCount()) === 0)
  })

  it.each([
    ["missing notifications", {}],
    ["non-object notifications", { notifications: true }],
    ["non-boolean flag", { notifications: { resourcesListChanged: "yes" } }],
    ["non-array subscriptions", { notifications: { resourceSubscriptions: "dbdesk://connections" } }]
  ])("C7.1-a listen with %s is 400 -32602 (interop §5.1)", async (_case, params) => {
    const { status, json } = await postMcp(server.url, modernRequest("subscriptions/listen", params))
    expect(status).toBe(400)
    expect(json.error.code).toBe(-32602)
  })

  it("C6-d subscriptions/listen is modern only: a legacy request gets no stream", async () => {
    const legacy = await postMcp(server.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: { notifications: {} }
    }, { "mcp-protocol-version": undefined })
    expect(legacy.status).toBe(404)
    expect(legacy.headers.get("content-type")).not.toMatch(/event-stream/)
  })

  it("C6-e server stop ends every open stream with the graceful result", async () => {
    const own = await startTestServer({ settings: { mcp: { requireAuth: false } } })
    const previous = server
    server = own
    try {
      const listen = await rawListen("stop-1", { resourcesListChanged: true })
      await until(async () => (await openCount()) === 1)
      const stopping = own.stop()
      const text = await listen.readUntil((text) => text.includes("\"result\""))
      await stopping
      expect(text).toContain("\"id\":\"stop-1\",\"result\":{\"resultType\":\"complete\"")
    } finally {
      server = previous
    }
  })
})
