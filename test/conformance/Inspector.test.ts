import { Context, Effect } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { ensureInstalled, INSPECTOR_VERSION, node22, runToEnd } from "../support/conformance/ToolCache.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

/**
 * Smoke test with the MCP Inspector's CLI (`@modelcontextprotocol/inspector` 2.x, `--cli`), a client
 * we did not write, against the real server with authentication on, in both protocol eras.
 */
let server: TestServer
let inspector: (era: string, authorization: string | undefined, ...args: Array<string>) => Promise<{ code: number | null; json: any; stderr: string }>
let connectionId: string

beforeAll(async () => {
  const [node, dir] = await Promise.all([node22(), ensureInstalled(`inspector-${INSPECTOR_VERSION}`, [`@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`])])
  server = await startTestServer({ ui: false, token: "readWrite" })
  connectionId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
  const launcher = join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
  // The Inspector keeps a catalog under HOME: give it one of its own.
  const env = { ...process.env, HOME: tempHome("dbdesk-inspector-") }
  inspector = async (era, authorization, ...args) => {
    const headers = authorization === undefined ? [] : ["--header", `Authorization: ${authorization}`]
    const result = await runToEnd(node, [launcher, "--cli", server.url, "--protocol-era", era, ...headers, "--format", "json", "--stored-auth-only", ...args], 60_000, env)
    let json: any
    try {
      json = JSON.parse(result.stdout === "" ? result.stderr : result.stdout)
    } catch {
      json = undefined
    }
    return { code: result.code, json, stderr: result.stderr }
  }
}, 600_000)
afterAll(() => server?.stop())

describe(`MCP Inspector ${INSPECTOR_VERSION} --cli against dbdesk (issue 29)`, () => {
  it.each(["modern", "legacy"])("%s era: lists, calls, reads and renders with a bearer token; a schema failure is a tool error; no token is refused", async (era) => {
    const bearer = `Bearer ${server.token}`
    const tools = await inspector(era, bearer, "--method", "tools/list")
    expect(tools.code).toBe(0)
    expect(tools.json.result.tools.map((tool: any) => tool.name)).toContain("execute_query")

    const query = await inspector(era, bearer, "--method", "tools/call", "--tool-name", "execute_query", "--tool-arg", `connection_id=${connectionId}`, "query=SELECT count(*) AS n FROM orders")
    expect(query.code).toBe(0)
    expect(query.json.result.structuredContent).toMatchObject({ columns: ["n"], row_count: 1, is_truncated: false })
    expect(query.json.result.structuredContent.rows[0][0]).toBeGreaterThan(0)
    // C2.4-e: modern results carry serverInfo in _meta, legacy results do not.
    expect(query.json.result._meta?.["io.modelcontextprotocol/serverInfo"]?.name).toBe(era === "modern" ? "dbdesk" : undefined)

    const resource = await inspector(era, bearer, "--method", "resources/read", "--uri", "dbdesk://connections")
    expect(resource.code).toBe(0)
    expect(JSON.parse(resource.json.result.contents[0].text).connections[0].name).toBe("Sample (SQLite)")

    const prompt = await inspector(era, bearer, "--method", "prompts/get", "--prompt-name", "explain_table", "--prompt-args", `connection=${connectionId}`, "table=orders")
    expect(prompt.code).toBe(0)
    expect(prompt.json.result.messages[0].content.text).toMatch(/^# Explain the table orders\n/)

    const invalid = await inspector(era, bearer, "--method", "tools/call", "--tool-name", "describe_table", "--tool-arg", `connection_id=${connectionId}`)
    expect(invalid.code).toBe(5)
    expect(invalid.stderr).toContain("returned isError:true")

    const anonymous = await inspector(era, undefined, "--method", "tools/list")
    expect(anonymous.code).toBe(3)
    expect(anonymous.json.error.code).toBe("auth_required")
  })
})
