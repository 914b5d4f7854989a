import { Context, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connection } from "../../src/domain/Connection.ts"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-59 through the real server: a search connection with three test-engine nodes pages through
// multi_search while the node serving a page breaks off mid-response and stops; the pages still come whole and in
// order, and the node health the dashboard and the form show says which node is down.
const CLUSTER_ID = "cluster-books"
const SINGLE_ID = "single-books"
let engines: Array<RunningEngine>
let proxy: FaultProxy
let server: TestServer
let home: string

beforeAll(async () => {
  engines = await Promise.all([1, 2, 3].map(() => startEngine({ version: 29 })))
  for (const engine of engines) {
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(1000))
  }
  proxy = await startFaultProxy(engines[1]!.port)
  home = tempHome()
  const common = {
    type: "search",
    host: "127.0.0.1",
    apiKey: engines[0]!.apiKey,
    externalAccess: "readOnly",
    aiPolicy: "alwaysAllow",
    confirmQueries: "writes"
  }
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [
        // written as connections.json holds a cluster: the further nodes as URLs, the official client's settings
        {
          ...common,
          id: CLUSTER_ID,
          name: "Books cluster",
          port: engines[0]!.port,
          nodes: `http://127.0.0.1:${proxy.port}, http://127.0.0.1:${engines[2]!.port}`,
          numRetries: 3,
          retryIntervalSeconds: 0.05,
          connectionTimeoutSeconds: 5,
          randomizeNodes: false
        },
        // a connection saved before clusters existed: no cluster fields at all
        {
          ...common,
          id: SINGLE_ID,
          name: "Books single",
          port: engines[0]!.port,
          sslMode: "Disabled",
          skipTlsVerification: false
        }
      ]
    }),
    { mode: 0o600 }
  )
  server = await startTestServer({ home, token: "readOnly", settings: { ui: { port: 0 } } })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await proxy?.close()
  await Promise.all((engines ?? []).map((engine) => engine.stop().catch(() => undefined)))
})

const browse = async (connectionId: string, offset: number) => {
  const response = await postMcp(
    server.url,
    modernRequest("tools/call", {
      name: "browse_table",
      arguments: { connection_id: connectionId, table: "books", limit: 250, offset }
    }),
    { authorization: `Bearer ${server.token}` }
  )
  expect(response.json.result?.isError, response.text).toBe(false)
  const { columns, rows } = response.json.result.structuredContent as {
    columns: Array<string>
    rows: Array<Array<unknown>>
  }
  return rows.map((row) => row[columns.indexOf("id")])
}
const multiSearches = (engine: RunningEngine) =>
  engine.requests.filter((request) => request.path.startsWith("/multi_search")).length

describe("D-59: a Typesense cluster through dbdesk", () => {
  it(
    "paging through multi_search survives the serving node breaking off mid-read and stopping: every page whole, in order",
    async () => {
      const expected = [] as Array<unknown>
      for (const offset of [0, 250, 500, 750]) expected.push(...await browse(SINGLE_ID, offset))
      for (const engine of engines) engine.requests.length = 0
      // Node 2 answers the first page's multi_search (node 1 answered its schema read): 5,000 bytes into that answer the
      // connection is reset and the engine behind it stops, while dbdesk is still reading.
      proxy.breakAfter(5000, "reset")
      const before = proxy.downstreamBytes()
      const watcher = setInterval(() => {
        if (proxy.downstreamBytes() >= before + 5000) {
          clearInterval(watcher)
          void engines[1]!.stop()
        }
      }, 1)
      const pages: Array<unknown> = []
      for (const offset of [0, 250, 500, 750]) pages.push(...await browse(CLUSTER_ID, offset))
      clearInterval(watcher)
      expect(pages).toEqual(expected)
      expect(new Set(pages).size).toBe(1000)
      // the broken read was retried on node 3; node 2, unhealthy, is skipped for the later pages
      expect([multiSearches(engines[0]!), multiSearches(engines[1]!), multiSearches(engines[2]!)]).toEqual([0, 1, 4])
      expect(proxy.downstreamBytes() - before).toBeGreaterThanOrEqual(5000)
    },
    60_000
  )

  it("the dashboard's and the form's node list says node 2 is down, in dbdesk's client and to a live GET /health", async () => {
    const ui = Context.get(server.context, UiAddress)
    const cookie = (await fetch(ui.launchUrl, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!
    const nodes = await (await fetch(`${ui.origin}/api/connections/${CLUSTER_ID}/nodes`, { headers: { cookie } }))
      .json() as Array<any>
    expect(nodes.map((node) => [node.label, node.url, node.healthy, node.probe.ok])).toEqual([
      ["1", `http://127.0.0.1:${engines[0]!.port}`, true, true],
      ["2", `http://127.0.0.1:${proxy.port}`, false, false],
      ["3", `http://127.0.0.1:${engines[2]!.port}`, true, true]
    ])
    expect(nodes[1].lastError).toMatch(/^The response from Typesense at http:\/\/127\.0\.0\.1:\d+ broke off/)
    const listed = await (await fetch(`${ui.origin}/api/connections`, { headers: { cookie } })).json() as Array<any>
    expect(listed.find((connection) => connection.id === CLUSTER_ID)).toMatchObject({
      nodes: `http://127.0.0.1:${proxy.port}, http://127.0.0.1:${engines[2]!.port}`,
      numRetries: 3,
      randomizeNodes: false
    })
  })

  it("a connections.json saved before clusters loads unchanged and is written back without new keys", async () => {
    const saved = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections.find((
      connection: { id: string }
    ) => connection.id === SINGLE_ID)
    const decoded = Schema.decodeUnknownSync(Connection)(saved)
    // D-64's AI settings are written back with their defaults; no cluster field is added
    expect(Schema.encodeSync(Connection)(decoded)).toEqual({ ...saved, maskingRules: [], secretCatalogs: "closed" })
    expect(Object.keys(saved).sort()).toEqual([
      "aiPolicy",
      "apiKey",
      "confirmQueries",
      "externalAccess",
      "host",
      "id",
      "name",
      "port",
      "skipTlsVerification",
      "sslMode",
      "type"
    ])
    const bad = Schema.decodeUnknownEither(Connection)({ ...saved, nodes: "node2:8108" })
    expect(bad._tag === "Left" ? bad.left.message : "").toContain(
      "\"node2:8108\" is not a node: write it as protocol://host:port"
    )
  })
})
