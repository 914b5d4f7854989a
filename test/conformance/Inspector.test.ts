import { Context, Effect } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { DBDESK_MCP } from "../bridge/BridgeHarness.ts"
import { ensureInstalled, INSPECTOR_VERSION, node22, runToEnd } from "../support/conformance/ToolCache.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

/**
 * Smoke test with the MCP Inspector's CLI (`@modelcontextprotocol/inspector` 2.x, `--cli`), a client
 * we did not write, against the real server with authentication on, in both protocol eras.
 */
let server: TestServer
type InspectorRun = { code: number | null; json: any; stderr: string }
let inspector: (era: string, authorization: string | undefined, ...args: Array<string>) => Promise<InspectorRun>
/** The Inspector starting `dbdesk-mcp` as its stdio server, as an AI client's entry would. */
let overBridge: (era: string, ...args: Array<string>) => Promise<InspectorRun>
let connectionId: string

beforeAll(async () => {
  const [node, dir] = await Promise.all([
    node22(),
    ensureInstalled(`inspector-${INSPECTOR_VERSION}`, [`@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`])
  ])
  server = await startTestServer({ ui: false, token: "readWrite" })
  connectionId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
  const launcher = join(
    dir,
    "node_modules",
    "@modelcontextprotocol",
    "inspector",
    "clients",
    "launcher",
    "build",
    "index.js"
  )
  // The Inspector keeps a catalog under HOME: give it one of its own.
  const env = { ...process.env, HOME: tempHome("dbdesk-inspector-") }
  const parsed = (result: { code: number | null; stdout: string; stderr: string }): InspectorRun => {
    let json: any
    try {
      json = JSON.parse(result.stdout === "" ? result.stderr : result.stdout)
    } catch {
      json = undefined
    }
    return { code: result.code, json, stderr: result.stderr }
  }
  inspector = async (era, authorization, ...args) => {
    const headers = authorization === undefined ? [] : ["--header", `Authorization: ${authorization}`]
    return parsed(
      await runToEnd(
        node,
        [
          launcher,
          "--cli",
          server.url,
          "--protocol-era",
          era,
          ...headers,
          "--format",
          "json",
          "--stored-auth-only",
          ...args
        ],
        60_000,
        env
      )
    )
  }
  overBridge = async (era, ...args) =>
    parsed(
      await runToEnd(
        node,
        [
          launcher,
          "--cli",
          "--protocol-era",
          era,
          "-e",
          `DBDESK_HOME=${server.home}`,
          "--format",
          "json",
          ...args,
          "--",
          process.execPath,
          DBDESK_MCP
        ],
        60_000,
        env
      )
    )
}, 600_000)
afterAll(() => server?.stop())

describe(`MCP Inspector ${INSPECTOR_VERSION} --cli against dbdesk`, () => {
  it.each(["modern", "legacy"])(
    "%s era: lists, calls, reads and renders with a bearer token; a schema failure is a tool error; no token is refused",
    async (era) => {
      const bearer = `Bearer ${server.token}`
      const tools = await inspector(era, bearer, "--method", "tools/list")
      expect(tools.code).toBe(0)
      expect(tools.json.result.tools.map((tool: any) => tool.name)).toContain("execute_query")

      const query = await inspector(
        era,
        bearer,
        "--method",
        "tools/call",
        "--tool-name",
        "execute_query",
        "--tool-arg",
        `connection_id=${connectionId}`,
        "query=SELECT count(*) AS n FROM orders"
      )
      expect(query.code).toBe(0)
      expect(query.json.result.structuredContent).toMatchObject({ columns: ["n"], row_count: 1, is_truncated: false })
      expect(query.json.result.structuredContent.rows[0][0]).toBeGreaterThan(0)
      // C2.4-e: modern results carry serverInfo in _meta, legacy results do not.
      expect(query.json.result._meta?.["io.modelcontextprotocol/serverInfo"]?.name).toBe(
        era === "modern" ? "dbdesk" : undefined
      )

      const resource = await inspector(era, bearer, "--method", "resources/read", "--uri", "dbdesk://connections")
      expect(resource.code).toBe(0)
      expect(JSON.parse(resource.json.result.contents[0].text).connections[0].name).toBe("Sample (SQLite)")

      const prompt = await inspector(
        era,
        bearer,
        "--method",
        "prompts/get",
        "--prompt-name",
        "explain_table",
        "--prompt-args",
        `connection=${connectionId}`,
        "table=orders"
      )
      expect(prompt.code).toBe(0)
      expect(prompt.json.result.messages[0].content.text).toMatch(/^# Explain the table orders\n/)

      const invalid = await inspector(
        era,
        bearer,
        "--method",
        "tools/call",
        "--tool-name",
        "describe_table",
        "--tool-arg",
        `connection_id=${connectionId}`
      )
      expect(invalid.code).toBe(5)
      expect(invalid.stderr).toContain("returned isError:true")

      const anonymous = await inspector(era, undefined, "--method", "tools/list")
      expect(anonymous.code).toBe(3)
      expect(anonymous.json.error.code).toBe("auth_required")
    }
  )
})

describe(`MCP Inspector ${INSPECTOR_VERSION} --cli over the stdio bridge (dbdesk-mcp)`, () => {
  it.each(["modern", "legacy"])(
    "C1-c %s era: the Inspector starts dbdesk-mcp and lists, calls and reads through it",
    async (era) => {
      const tools = await overBridge(era, "--method", "tools/list")
      expect(tools.code).toBe(0)
      expect(tools.json.result.tools.map((tool: any) => tool.name)).toContain("execute_query")

      const query = await overBridge(
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "execute_query",
        "--tool-arg",
        `connection_id=${connectionId}`,
        "query=SELECT count(*) AS n FROM orders"
      )
      expect(query.code).toBe(0)
      expect(query.json.result.structuredContent).toMatchObject({ columns: ["n"], row_count: 1 })
      // C2.4-e: the bridge strips serverInfo from a legacy host's results, as the server does over HTTP.
      expect(query.json.result._meta?.["io.modelcontextprotocol/serverInfo"]?.name).toBe(
        era === "modern" ? "dbdesk" : undefined
      )

      const resource = await overBridge(era, "--method", "resources/read", "--uri", "dbdesk://connections")
      expect(resource.code).toBe(0)
      expect(JSON.parse(resource.json.result.contents[0].text).connections[0].name).toBe("Sample (SQLite)")
    }
  )
})
