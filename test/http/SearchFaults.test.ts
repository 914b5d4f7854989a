// D-73 on a search-engine connection: a loopback proxy in front of the test engine resets or stalls the
// socket while dbdesk reads a response. Oracle: the caller gets a tool error naming the connection (or -33003 at the
// deadline), the endpoint still answers, and the next call on the connection returns the right document.
import { Context, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SettingsStore } from "../../src/services/Settings.ts"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { expectServing } from "../support/PostgresMcp.ts"
import { type SearchMcpServer, startSearchMcpServer } from "../support/SearchMcpServer.ts"
import { modernRequest, postMcp } from "../support/TestServer.ts"

const PROXIED = { id: "search-proxied", name: "Proxied search" }
/** Enough of the response to be past its status line and headers, not the whole body. */
const PART = 300

let fixture: SearchMcpServer
let proxy: FaultProxy
let token: string

beforeAll(async () => {
  // The connection names the proxy's port (and the engine's default key); the proxy learns the engine's port once it runs.
  proxy = await startFaultProxy(0)
  fixture = await startSearchMcpServer([{
    type: "search",
    id: PROXIED.id,
    name: PROXIED.name,
    host: "127.0.0.1",
    port: proxy.port,
    apiKey: "bootstrap-key"
  }])
  proxy.retarget(fixture.engine.port)
  token = await fixture.tokenFor("readOnly")
})
afterAll(async () => {
  await proxy?.close()
  await fixture?.stop()
})

const call = (name: string, args: Record<string, unknown>) =>
  postMcp(
    fixture.server.url,
    modernRequest("tools/call", { name, arguments: { connection_id: PROXIED.id, ...args } }),
    { authorization: `Bearer ${token}` }
  )

const expectNamedFailure = (answer: Awaited<ReturnType<typeof call>>) => {
  expect(answer.json.result?.isError, answer.text).toBe(true)
  expect(answer.json.result.content[0].text, answer.text).toMatch(/^(not_connected|query_failed|timeout): /)
  expect(answer.json.result.content[0].text, answer.text).toContain(`'${PROXIED.name}'`)
}

const expectHealed = async () => {
  await expectServing(fixture.server.url)
  const answer = await call("search_documents", {
    collection: "books",
    q: "Book 7",
    query_by: "title",
    filter_by: "id:=7"
  })
  expect(answer.json.result?.structuredContent?.hits?.map((hit: any) => hit.id), answer.text).toEqual(["7"])
}

describe("a search-engine socket that breaks mid-read (D-73)", () => {
  it(
    "reset after the first bytes of the response: an error naming the connection, then the next call is answered",
    async () => {
      await expectHealed()
      proxy.breakAfter(PART, "reset")
      expectNamedFailure(await call("search_documents", { collection: "books", q: "*", per_page: 30 }))
      await expectHealed()
    },
    60_000
  )

  it(
    "stalled after the first bytes of the response, on a tool without timeout_seconds: limits.queryTimeoutSeconds answers -33003",
    async () => {
      await expectHealed()
      await Effect.runPromise(
        Context.get(fixture.server.context, SettingsStore).update({ limits: { queryTimeoutSeconds: 2 } })
      )
      try {
        proxy.breakAfter(PART, "stall")
        const answer = await call("search_documents", { collection: "books", q: "*", per_page: 30 })
        expect(answer.json.error, answer.text).toMatchObject({
          code: -33003,
          data: { deadline: "statement", seconds: 2 }
        })
      } finally {
        await Effect.runPromise(
          Context.get(fixture.server.context, SettingsStore).update({ limits: { queryTimeoutSeconds: 30 } })
        )
      }
      await expectHealed()
    },
    60_000
  )

  it(
    "stalled after the first bytes of the response: the deadline answers -33003, then the next call is answered",
    async () => {
      await expectHealed()
      proxy.breakAfter(PART, "stall")
      const answer = await call("execute_query", {
        query: "GET /collections/books/documents/search?q=*&per_page=30",
        timeout_seconds: 2
      })
      expect(answer.json.error, answer.text).toMatchObject({
        code: -33003,
        data: { deadline: "statement", seconds: 2 }
      })
      await expectHealed()
    },
    60_000
  )
})
