import { Effect, Exit, Redacted, Scope } from "effect"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { Client } from "typesense"
import { afterEach, describe, expect, it } from "vitest"
import { nodeOrigin, SearchConnectionSettings, type SearchNode } from "../../src/domain/SearchConnection.ts"
import { makeSearchClient, type SearchClient } from "../../src/search/SearchClient.ts"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { bookDocuments, books } from "./EngineHelpers.ts"

// D-59: a search connection's nodes follow the official `typesense` client's failover. The same scenario
// runs through the official client and through dbdesk's, and the nodes each request reached must be the same.
const running: Array<RunningEngine> = []
const scopes: Array<Scope.CloseableScope> = []
const proxies: Array<FaultProxy> = []
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()))
  for (const scope of scopes.splice(0)) await Effect.runPromise(Scope.close(scope, Exit.void))
  await Promise.all(running.splice(0).map((engine) => engine.stop().catch(() => undefined)))
})

const engines = async (count: number) => {
  const started = await Promise.all(Array.from({ length: count }, () => startEngine({ version: 29 })))
  for (const engine of started) {
    await engine.createCollection(books)
    await engine.importDocuments("books", bookDocuments(20))
  }
  running.push(...started)
  return started
}

/** A loopback port nothing listens on. */
const closedPort = async () => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

const node = (engine: Pick<RunningEngine, "host" | "port">): SearchNode => ({
  protocol: "http",
  host: engine.host,
  port: engine.port
})

interface Options {
  readonly nodes: ReadonlyArray<RunningEngine>
  readonly nearest?: Pick<RunningEngine, "host" | "port">
  readonly numRetries: number
  readonly healthcheckIntervalSeconds: number
}

const dbdeskClient = async (options: Options): Promise<SearchClient> => {
  const [first, ...rest] = options.nodes
  const settings = new SearchConnectionSettings({
    host: first!.host,
    port: first!.port,
    apiKey: Redacted.make(first!.apiKey),
    sslMode: "Disabled",
    skipTlsVerification: false,
    cluster: {
      nodes: rest.map(node),
      ...(options.nearest === undefined ? {} : { nearestNode: node(options.nearest) }),
      numRetries: options.numRetries,
      retryIntervalSeconds: 0.01,
      healthcheckIntervalSeconds: options.healthcheckIntervalSeconds,
      connectionTimeoutSeconds: 2,
      randomizeNodes: false
    }
  })
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  return Effect.runPromise(makeSearchClient(settings).pipe(Scope.extend(scope)))
}

const officialClient = (options: Options) =>
  new Client({
    nodes: options.nodes.map((engine) => ({ host: engine.host, port: engine.port, protocol: "http" })),
    ...(options.nearest === undefined
      ? {}
      : { nearestNode: { host: options.nearest.host, port: options.nearest.port, protocol: "http" } }),
    apiKey: options.nodes[0]!.apiKey,
    numRetries: options.numRetries,
    retryIntervalSeconds: 0.01,
    healthcheckIntervalSeconds: options.healthcheckIntervalSeconds,
    connectionTimeoutSeconds: 2,
    randomizeNodes: false,
    logLevel: "silent"
  })

/** Which engines each of `count` requests reached (by index), with the engines' own request logs as the witness. */
const reached = async (all: ReadonlyArray<RunningEngine>, count: number, request: () => Promise<unknown>) => {
  const trail: Array<string> = []
  for (let i = 0; i < count; i++) {
    const before = all.map((engine) => engine.requests.length)
    const outcome = await request().then(() => "ok", () => "failed")
    trail.push(
      `${
        all.flatMap((engine, index) => (engine.requests.length > before[index]! ? [index + 1] : [])).join("+") || "none"
      }:${outcome}`
    )
  }
  return trail
}

const viaDbdesk = (client: SearchClient) => () => Effect.runPromise(client.call("GET", "/collections/books"))
const viaOfficial = (client: Client) => () => client.collections("books").retrieve()

describe("D-59: cluster failover with the official client's semantics", () => {
  it(
    "round robin; a stopped node is marked unhealthy, the request retried on the next one, then skipped until the health-check interval",
    async () => {
      const trails = []
      for (const client of ["official", "dbdesk"] as const) {
        const all = await engines(3)
        const options = { nodes: all, numRetries: 3, healthcheckIntervalSeconds: 60 }
        const request = client === "official"
          ? viaOfficial(officialClient(options))
          : viaDbdesk(await dbdeskClient(options))
        const healthy = await reached(all, 3, request)
        await all[1]!.stop()
        trails.push([...healthy, ...await reached(all, 5, request)])
      }
      expect(trails[1]).toEqual(trails[0])
      expect(trails[0]).toEqual(["1:ok", "2:ok", "3:ok", "1:ok", "3:ok", "1:ok", "3:ok", "1:ok"])
    },
    60_000
  )

  it(
    "the nearest node is used while healthy; when it goes down the nodes take over; after the interval it is tried again and back",
    async () => {
      const trails = []
      for (const client of ["official", "dbdesk"] as const) {
        const all = await engines(3)
        // the nearest node through a proxy, so it can go down and come back on the same port
        const nearest = await startFaultProxy(all[2]!.port)
        proxies.push(nearest)
        const options = {
          nodes: all.slice(0, 2),
          nearest: { ...all[2]!, port: nearest.port },
          numRetries: 2,
          healthcheckIntervalSeconds: 0.4
        }
        const request = client === "official"
          ? viaOfficial(officialClient(options))
          : viaDbdesk(await dbdeskClient(options))
        const trail = await reached(all, 2, request)
        nearest.retarget(await closedPort())
        nearest.reset() // the kept-alive connections go too
        trail.push(...await reached(all, 3, request))
        nearest.retarget(all[2]!.port)
        trail.push(...await reached(all, 1, request)) // within the interval: not tried yet
        await new Promise((resolve) => setTimeout(resolve, 600)) // past healthcheckIntervalSeconds
        trail.push(...await reached(all, 2, request))
        trails.push(trail)
      }
      expect(trails[1]).toEqual(trails[0])
      expect(trails[0]).toEqual(["3:ok", "3:ok", "1:ok", "2:ok", "1:ok", "2:ok", "3:ok", "3:ok"])
    },
    60_000
  )

  it("with every node down the request is tried numRetries + 1 times and fails naming the last node", async () => {
    const all = await engines(2)
    const client = await dbdeskClient({ nodes: all, numRetries: 3, healthcheckIntervalSeconds: 60 })
    await Promise.all(all.map((engine) => engine.stop()))
    const error = await Effect.runPromise(Effect.flip(client.call("GET", "/collections/books")))
    expect(error.message).toMatch(
      new RegExp(
        `^Could not reach Typesense at (${
          all.map((engine) => nodeOrigin(node(engine)).replace(/\./g, "\\.")).join("|")
        }): .* \\(tried 4 times across the cluster's nodes\\)$`
      )
    )
    expect(client.nodeHealth().map((entry) => entry.healthy)).toEqual([false, false])
  }, 60_000)
})
