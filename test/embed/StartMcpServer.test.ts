import type { Client } from "@modelcontextprotocol/client"
import Database from "better-sqlite3"
import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ApprovalRequest, type DbdeskServer, type ServerEventMap, startMcpServer } from "../../src/index.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { tempHome } from "../support/TestServer.ts"
import { BUILT_IN_TOOL_NAMES } from "../../src/domain/ToolNames.ts"

/**
 * D-77: the Promise facade as a host that does not use Effect calls it, from the sources (the same facade
 * from the packed tarball runs in test/package/Package.test.ts). Real server, real SQLite files, the official client.
 */
const home = tempHome("dbdesk-embed-")
const ordersDb = join(home, "orders.db")
const db = new Database(ordersDb)
db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)")
db.close()
const count = () => {
  const reader = new Database(ordersDb, { readonly: true })
  try {
    return (reader.prepare("SELECT count(*) AS n FROM orders").get() as { n: number }).n
  } finally {
    reader.close()
  }
}

/** The host's dialog: answers from a script and records every request it was shown. */
const asked: Array<ApprovalRequest> = []
let answer: (request: ApprovalRequest) => Promise<boolean> = async () => true
const seen: { [E in keyof ServerEventMap]: Array<ServerEventMap[E]> } = {
  "approval.asked": [],
  "approval.answered": [],
  "client.connected": [],
  "activity.appended": [],
  "token.used": []
}

let server: DbdeskServer
let client: Client
let tokenId: string
beforeAll(async () => {
  server = await startMcpServer({
    home,
    port: 0,
    ui: false,
    connections: [
      {
        id: "orders",
        name: "Orders",
        type: "sqlite",
        path: ordersDb,
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes"
      },
      {
        id: "archive",
        name: "Archive",
        type: "sqlite",
        path: join(home, "archive.db"),
        externalAccess: "readOnly",
        aiPolicy: "alwaysAllow"
      }
    ],
    approve: (request) => {
      asked.push(request)
      return answer(request)
    },
    serverInfo: { name: "host-app", title: "Host app" }
  })
  const record = <E extends keyof ServerEventMap>(name: E) =>
    server.events.on(name, (payload) => void (seen[name] as Array<ServerEventMap[E]>).push(payload))
  for (const name of Object.keys(seen) as Array<keyof ServerEventMap>) record(name)
  const created = await server.tokens.create({ name: "host client", access: "fullAccess" })
  tokenId = created.id
  client = await connectModernClient(server.url, { token: created.value })
})
afterAll(async () => {
  await client?.close()
  await server?.stop()
})

/** Events reach listeners shortly after the request that caused them has been answered. */
const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 5000
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  expect(condition()).toBe(true)
}

const execute = (query: string) =>
  client.callTool({ name: "execute_query", arguments: { connection_id: "orders", query } }) as Promise<any>

describe("startMcpServer (D-77)", () => {
  it("serves every tool, on the host's own connections only (connections.json is never written)", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([...BUILT_IN_TOOL_NAMES].sort())
    const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
    expect(listed.structuredContent.connections.map((connection: any) => connection.id)).toEqual(["orders", "archive"])
    expect(existsSync(join(home, "connections.json"))).toBe(false)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`)
    expect([server.home, server.uiUrl]).toEqual([home, undefined])
  })

  it("C3.1-a a write calls approve once with who, where and what; it runs when approve resolves true", async () => {
    asked.length = 0
    answer = async () => true
    const before = count()
    const result = await execute("INSERT INTO orders (item) VALUES ('lamp')")
    expect(result.isError).toBe(false)
    expect(count()).toBe(before + 1)
    expect(asked).toHaveLength(1)
    expect(asked[0]).toEqual({
      id: expect.any(String),
      kind: "statement",
      message: "Allow INSERT on 'Orders'?",
      clientName: "dbdesk-tests",
      clientVersion: "1.0.0",
      tokenName: "host client",
      access: "fullAccess",
      connectionId: "orders",
      connectionName: "Orders",
      tool: "execute_query",
      statement: "INSERT INTO orders (item) VALUES ('lamp')",
      destructive: false,
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    })
  })

  it("C3.1-f false, a rejection, a throw or a value other than true denies, and nothing is written", async () => {
    const before = count()
    const answers: Array<(request: ApprovalRequest) => Promise<boolean>> = [
      async () => false,
      () => Promise.reject(new Error("dialog crashed")),
      () => {
        throw new Error("dialog threw")
      },
      async () => "yes" as unknown as boolean
    ]
    for (const next of answers) {
      answer = next
      const result = await execute("DELETE FROM orders WHERE id > 0")
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toBe("denied: the user did not approve this operation")
    }
    expect(count()).toBe(before)
  })

  it("a destructive statement is marked so in the request", async () => {
    asked.length = 0
    answer = async () => false
    await client.callTool({
      name: "confirm_destructive_operation",
      arguments: { connection_id: "orders", query: "DROP TABLE orders" }
    })
    expect(asked.map((request) => [request.tool, request.destructive, request.statement])).toEqual([[
      "confirm_destructive_operation",
      true,
      "DROP TABLE orders"
    ]])
    expect(count()).toBeGreaterThan(0)
  })

  it("events: approvals asked and answered, the client, activity rows and token use, typed", async () => {
    await execute("SELECT 1")
    await until(() =>
      seen["activity.appended"].some((entry) =>
        entry.action === "tool.call" && entry.subject === "execute_query" && entry.outcome === "success"
      )
    )
    const askedIds = seen["approval.asked"].map((request) => request.id)
    expect(askedIds.length).toBeGreaterThanOrEqual(6)
    expect(seen["approval.answered"].map((event) => event.id)).toEqual(askedIds)
    expect(seen["approval.answered"][0]!.decision).toBe("approved")
    expect(seen["approval.answered"][1]!.decision).toBe("denied")
    expect(seen["client.connected"].map((entry) => [entry.clientName, entry.tokenName])).toEqual([[
      "dbdesk-tests",
      "host client"
    ]])
    expect(seen["token.used"].every((token) => token.id === tokenId && !("hash" in token) && !("salt" in token))).toBe(
      true
    )
    expect(seen["token.used"].length).toBeGreaterThan(5)
    const actions = seen["activity.appended"].map((entry) => entry.action)
    expect(actions).toContain("tool.call")
    expect(JSON.stringify(seen["activity.appended"])).not.toContain("INSERT INTO orders")
  })

  it("a listener that throws does not stop the other listeners or the server", async () => {
    const stop = server.events.on("token.used", () => {
      throw new Error("host bug")
    })
    const before = seen["token.used"].length
    await client.callTool({ name: "list_connections", arguments: {} })
    await until(() => seen["token.used"].length === before + 1)
    stop()
  })

  it("tokens: create with the CLI's expiry forms, list without the bridge's, revoke at once", async () => {
    const created = await server.tokens.create({
      name: " reader ",
      access: "readOnly",
      connections: ["orders"],
      expires: "30d"
    })
    expect(created.value).toMatch(/^dbd_[A-Za-z0-9_-]{43}$/)
    expect(created.token).toMatchObject({ id: created.id, name: "reader", access: "readOnly", connections: ["orders"] })
    expect(Date.parse(created.token.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000)
    const listed = await server.tokens.list()
    expect(listed.map((token) => token.name)).toEqual(["host client", "reader"])
    expect(listed.some((token) => "hash" in token)).toBe(false)
    const reader = await connectModernClient(server.url, { token: created.value })
    await reader.close()
    expect((await server.tokens.revoke(created.id)).revokedAt).toEqual(expect.any(String))
    await expect(connectModernClient(server.url, { token: created.value })).rejects.toThrow()
  })

  it("bad input is refused with a message that says what to fix, and the server keeps serving", async () => {
    await expect(server.tokens.create({ name: " ", access: "readOnly" })).rejects.toThrow(
      "startMcpServer: a token needs a name"
    )
    await expect(server.tokens.create({ name: "x", access: "root" as never })).rejects.toThrow(
      "access must be readOnly, readWrite or fullAccess, not \"root\""
    )
    await expect(server.tokens.create({ name: "x", access: "readOnly", connections: ["nope"] })).rejects.toThrow(
      "no connection has the id \"nope\""
    )
    await expect(server.tokens.create({ name: "x", access: "readOnly", expires: "yesterday" })).rejects.toThrow(
      "expires: --expires takes 30d"
    )
    await expect(server.tokens.revoke("no-such-id")).rejects.toThrow("No token has the id no-such-id")
    await expect(startMcpServer({ home: tempHome(), port: 70000 })).rejects.toThrow(
      "port must be a whole number from 0 to 65535"
    )
    const badConnection = startMcpServer({
      home: tempHome(),
      port: 0,
      connections: [{ id: "a", name: "A", type: "sqlite" } as never]
    })
    await expect(badConnection).rejects.toThrow(/connections are not valid:[\s\S]*path/)
    const twice = { id: "a", name: "A", type: "sqlite" as const, path: "/tmp/a.db" }
    await expect(startMcpServer({ home: tempHome(), port: 0, connections: [twice, twice] })).rejects.toThrow(
      "two connections have the id \"a\""
    )
    await expect(startMcpServer({ home, port: 0 })).rejects.toThrow(
      `already running (pid ${process.pid}) at ${server.url}`
    )
    expect((await client.callTool({ name: "list_connections", arguments: {} })).isError).toBe(false)
  })
})

describe("stop (D-77, lifecycle)", () => {
  it("resolves, frees the port, removes the handshake file; a second stop is the same stop; tokens then refuse", async () => {
    const own = await startMcpServer({ home: tempHome(), port: 0, approve: async () => true })
    const port = own.port
    const handshake = join(own.home, "mcp-handshake.json")
    expect(existsSync(handshake)).toBe(true)
    const first = own.stop()
    expect(own.stop()).toBe(first)
    await first
    expect(existsSync(handshake)).toBe(false)
    await new Promise<void>((resolve, reject) => {
      const probe = createServer()
      probe.once("error", reject)
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()))
    })
    await expect(own.tokens.list()).rejects.toThrow("this dbdesk server is stopped")
  })
})

describe("nothing reads the environment, argv or the user's home unless the host asks (D-77)", () => {
  const SUPPORT_KEYS = /^(DBDESK_\w*|HOME|XDG_\w+|APPDATA|USERPROFILE)$/
  const watched = async (run: () => Promise<void>) => {
    const env = process.env
    const argv = process.argv
    const envKeys = new Set<string>()
    let argvRead = false
    process.env = new Proxy(env, {
      get: (target, key) => {
        if (typeof key === "string") envKeys.add(key)
        return Reflect.get(target, key)
      },
      has: (target, key) => {
        if (typeof key === "string") envKeys.add(key)
        return Reflect.has(target, key)
      }
    })
    process.argv = new Proxy(argv, {
      get: (target, key) => {
        argvRead = true
        return Reflect.get(target, key)
      }
    })
    try {
      await run()
    } finally {
      process.env = env
      process.argv = argv
    }
    return { supportKeys: [...envKeys].filter((key) => SUPPORT_KEYS.test(key)), argvRead }
  }

  it("with a home: start, a token, a request and stop read no DBDESK_*, HOME, XDG_*, APPDATA and no argv", async () => {
    const read = await watched(async () => {
      const own = await startMcpServer({ home: tempHome(), port: 0 })
      const { value } = await own.tokens.create({ name: "t", access: "readOnly" })
      const probe = await connectModernClient(own.url, { token: value })
      await probe.listTools()
      await probe.close()
      await own.stop()
    })
    expect(read).toEqual({ supportKeys: [], argvRead: false })
  })

  it("without one the host asks for the platform default, and DBDESK_HOME is read (the probe sees reads)", async () => {
    const chosen = tempHome()
    process.env["DBDESK_HOME"] = chosen
    try {
      let used = ""
      const read = await watched(async () => {
        const own = await startMcpServer({ port: 0 })
        used = own.home
        await own.stop()
      })
      expect(read.supportKeys).toContain("DBDESK_HOME")
      expect(used).toBe(chosen)
    } finally {
      delete process.env["DBDESK_HOME"]
    }
  })
})
