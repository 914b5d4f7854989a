// D-42 against `dbdesk serve` as users run it: DNS rebinding (Host variants on the MCP and UI listeners),
// Origin variants, cursors presented by another principal, the code-level constant-time check of every secret
// comparison, and a secrets scan plus file modes of everything this part wrote (the whole run's scan is Scan.test.ts).
// Already covered elsewhere, not repeated: requestState replay, tampering and cross-principal use
// (test/http/Approvals.test.ts "C3.1-g C3.1-i"), cursors from another method (test/http/Cursor.test.ts "C4.5-b",
// test/http/ToolsPaging.test.ts), the Host/Origin property tests (test/http/TransportHost.test.ts).
import { readFileSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defineTool, toolResult } from "../../src/services/tools/Tool.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { connectRaw, httpRequest } from "../support/RawHttp.ts"
import { Context } from "effect"
import { modernRequest, postMcp, startTestServer } from "../support/TestServer.ts"
import { partDirectory, registerSecret, reportFigures } from "./Run.ts"
import { fileModeProblems, readSecrets, scanForSecrets } from "./SecretsScan.ts"
import { closedPort, fakeSecret, type PreparedServe, prepareServe, uiApi } from "./ServeUnderTest.ts"
import { runRoot } from "./Run.ts"

const ROOT = join(import.meta.dirname, "../..")
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}
const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } })

let directory: string
let serve: PreparedServe
const answers: Array<unknown> = []

beforeAll(async () => {
  directory = partDirectory("security")
  const common = { externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }
  serve = await prepareServe({
    directory,
    part: "security",
    connections: [
      {
        ...common,
        id: "sec-pg",
        name: "Security PostgreSQL (down)",
        type: "postgresql",
        host: "127.0.0.1",
        port: await closedPort(),
        database: "app",
        user: "app",
        password: fakeSecret("pg-password")
      },
      {
        ...common,
        id: "sec-mysql",
        name: "Security MySQL (down)",
        type: "mysql",
        host: "127.0.0.1",
        port: await closedPort(),
        user: "app",
        password: fakeSecret("mysql-password")
      },
      {
        ...common,
        id: "sec-search",
        name: "Security search (down)",
        type: "search",
        host: "127.0.0.1",
        port: await closedPort(),
        apiKey: fakeSecret("search-key")
      }
    ]
  })
}, 180_000)

afterAll(async () => {
  await serve?.process.stop()
})

const mcpHeaders = (host: string) => ({
  host,
  "content-type": "application/json",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/list",
  authorization: `Bearer ${serve.defaultToken}`
})

/** Host values a DNS-rebinding page could make a browser send: other names resolving to 127.0.0.1, other spellings. */
const reboundHosts = (port: number) => [
  "localhost.",
  `localhost.:${port}`,
  "LOCALHOST.",
  "127.0.0.1.",
  `127.0.0.1.:${port}`,
  "[::1].",
  `localhost:${port + 1}`,
  "localhost:80",
  "localhost:0",
  `localhost:0${port}`,
  `localhost:+${port}`,
  "localhost:",
  `localhost:${port}:${port}`,
  "127.0.0.1.nip.io",
  `127.0.0.1.nip.io:${port}`,
  "7f000001.nip.io",
  "127-0-0-1.sslip.io",
  "localtest.me",
  `app.localhost:${port}`,
  "localhost.attacker.example",
  `attacker.example:${port}`,
  "127.1",
  "2130706433",
  "0x7f000001",
  "0177.0.0.1",
  "127.0.0.2",
  "0.0.0.0",
  "[::ffff:127.0.0.1]",
  "[0:0:0:0:0:0:0:1]",
  "[::2]",
  `[::1]:${port + 1}`,
  "::1:80",
  `127.0.0.1:${port}@attacker.example`,
  `localhost%2e`
]

describe("DNS rebinding and cross-origin calls (D-42, wire contract §4.1)", () => {
  it("C4.1-e C7.1-c the MCP listener refuses every rebinding Host variant with 403 forbidden_host and serves the loopback names", async () => {
    const port = serve.process.port
    const accepted = [
      "localhost",
      "LocalHost",
      `LOCALHOST:${port}`,
      "127.0.0.1",
      `127.0.0.1:${port}`,
      "[::1]",
      `[::1]:${port}`
    ]
    for (const host of accepted) {
      expect((await httpRequest(port, { headers: mcpHeaders(host), body: toolsList })).status, host).toBe(200)
    }
    const refused: Array<string> = []
    for (const host of reboundHosts(port)) {
      const answer = await httpRequest(port, { headers: mcpHeaders(host), body: toolsList })
      answers.push({ listener: "mcp", host, status: answer.status, body: answer.body })
      if (answer.status === 403 && answer.json?.error?.code === "forbidden_host") refused.push(host)
    }
    expect(refused).toEqual(reboundHosts(port))
    // An empty Host (node's client would fill one in, so on a raw socket).
    const socket = await connectRaw(port)
    await socket.write(
      `POST /mcp HTTP/1.1\r\nhost: \r\ncontent-type: application/json\r\ncontent-length: ${
        Buffer.byteLength(toolsList)
      }\r\nconnection: close\r\n\r\n${toolsList}`
    )
    const empty = await socket.nextResponse()
    expect([empty.status, empty.json?.error?.code]).toEqual([403, "forbidden_host"])
  })

  it("C7.1-c the UI listener refuses every rebinding Host variant (and a loopback name without its port) before the session check", async () => {
    const port = Number(new URL(serve.process.uiOrigin).port)
    const ui = (host: string) =>
      httpRequest(port, { method: "GET", path: "/api/tokens", headers: { host, cookie: serve.uiCookie } })
    for (const host of [`127.0.0.1:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await ui(host)).status, host).toBe(200)
    }
    const variants = [...reboundHosts(port), "localhost", "127.0.0.1", "[::1]"]
    const refused: Array<string> = []
    for (const host of variants) {
      const answer = await ui(host)
      answers.push({ listener: "ui", host, status: answer.status, body: answer.body })
      if (answer.status === 403 && /forbidden host/i.test(answer.body)) refused.push(host)
    }
    expect(refused).toEqual(variants)
  })

  it("C4.1-f C7.1-c the MCP listener serves the two allowed origins exactly and refuses every near miss with 403 forbidden_origin", async () => {
    const port = serve.process.port
    const call = (origin: string) =>
      httpRequest(port, { headers: { ...mcpHeaders(`127.0.0.1:${port}`), origin }, body: toolsList })
    for (const origin of ["https://claude.ai", "https://app.cursor.com"]) {
      const answer = await call(origin)
      expect([answer.status, answer.headers["access-control-allow-origin"]], origin).toEqual([200, origin])
    }
    const nearMisses = [
      "https://claude.ai.attacker.example",
      "https://attacker.claude.ai",
      "http://claude.ai",
      "https://claude.ai:8443",
      "https://claude.ai/",
      "https://CLAUDE.AI",
      "https://claude.ai.",
      "null",
      "",
      "file://",
      "chrome-extension://abcdef",
      `http://127.0.0.1:${port}`,
      serve.process.uiOrigin,
      "http://localhost",
      "https://app.cursor.com.attacker.example",
      "https://claude.ai, https://attacker.example"
    ]
    const refused: Array<string> = []
    for (const origin of nearMisses) {
      const answer = await call(origin)
      answers.push({ listener: "mcp", origin, status: answer.status, body: answer.body })
      if (
        answer.status === 403 && answer.json?.error?.code === "forbidden_origin" &&
        answer.headers["access-control-allow-origin"] === undefined
      ) refused.push(origin)
    }
    expect(refused).toEqual(nearMisses)
  })

  it("C4.1-f two Origin headers, an allowed one first, are refused: the check reads no single allowed value out of a list", async () => {
    const port = serve.process.port
    const socket = await connectRaw(port)
    const head = Object.entries(mcpHeaders(`127.0.0.1:${port}`)).map(([name, value]) => `${name}: ${value}\r\n`).join(
      ""
    )
    await socket.write(
      `POST /mcp HTTP/1.1\r\n${head}origin: https://claude.ai\r\norigin: https://attacker.example\r\ncontent-length: ${
        Buffer.byteLength(toolsList)
      }\r\nconnection: close\r\n\r\n${toolsList}`
    )
    const answer = await socket.nextResponse()
    answers.push({ listener: "mcp", origin: "two", status: answer.status, body: answer.body })
    expect(answer.status).toBe(403)
    expect(answer.json?.error?.code).toBe("forbidden_origin")
  })

  it("the UI API refuses a state-changing call from any origin but its own page, and creates nothing", async () => {
    const port = Number(new URL(serve.process.uiOrigin).port)
    const before = (await uiApi(serve, "/api/tokens")).json.length
    const body = JSON.stringify({
      name: "from another origin",
      access: "fullAccess",
      connections: "all",
      expiresInDays: null
    })
    const origins = [
      "https://attacker.example",
      "null",
      `http://localhost:${port}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1:${serve.process.port}`,
      "https://claude.ai"
    ]
    for (const origin of origins) {
      const answer = await httpRequest(port, {
        method: "POST",
        path: "/api/tokens",
        headers: { host: `127.0.0.1:${port}`, origin, cookie: serve.uiCookie, "content-type": "application/json" },
        body
      })
      answers.push({ listener: "ui", origin, status: answer.status, body: answer.body })
      expect(answer.status, origin).toBe(403)
    }
    expect((await uiApi(serve, "/api/tokens")).json.length).toBe(before)
  })
})

describe("cursors and principals (wire contract §4.5)", () => {
  it("C4.5-b a tools/list cursor presented by another principal pages that principal's own list only: no tool it may not call", async () => {
    // 120 host tools, half of them needing tools:write, so a fullAccess caller's list pages differently from a readOnly one's.
    const extraTools = Array.from({ length: 120 }, (_, index) =>
      defineTool({
        name: `sec_tool_${String(index).padStart(3, "0")}`,
        title: `Security tool ${index}`,
        description: "A host tool",
        arguments: Schema.Struct({}),
        scopes: index % 2 === 0 ? ["tools:write"] : [],
        readOnly: index % 2 !== 0,
        prepare: () => Effect.succeed(Effect.succeed(toolResult({ index })))
      }))
    const server = await startTestServer({ token: "fullAccess", extraTools })
    try {
      const readOnly = (await Effect.runPromise(
        Context.get(server.context, Tokens).create({ name: "reader", access: "readOnly", connections: "all" })
      )).value
      const list = (token: string, cursor?: string) =>
        postMcp(server.url, modernRequest("tools/list", cursor === undefined ? {} : { cursor }), {
          authorization: `Bearer ${token}`
        })
      const fullFirst = await list(server.token!)
      const cursor = fullFirst.json.result.nextCursor as string
      expect(typeof cursor).toBe("string")
      const readerAll: Array<string> = []
      for (let next: string | undefined, first = true; first || next !== undefined; first = false) {
        const page = await list(readOnly, next)
        readerAll.push(...page.json.result.tools.map((tool: { name: string }) => tool.name))
        next = page.json.result.nextCursor
      }
      const crossed = await list(readOnly, cursor)
      const names: Array<string> = crossed.json.result?.tools?.map((tool: { name: string }) => tool.name) ?? []
      expect(crossed.json.error?.code ?? 0, "either refused with -32602 or answered").toSatisfy((code: number) =>
        code === 0 || code === -32602
      )
      expect(names.filter((name) => !readerAll.includes(name)), "tools the readOnly caller may not call").toEqual([])
      expect(readerAll.filter((name) => /^sec_tool_\d+$/.test(name) && Number(name.slice(9)) % 2 === 0)).toEqual([])
    } finally {
      await server.stop()
    }
  })
})

/** Equality operators in `file` whose operands name a secret (a hash, a key, a session, a presented value). */
const plainSecretComparisons = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const secretName = /\b(hash|salt|key|session|secret|presented|stored|value|token)\b/i
  const harmless = (node: ts.Expression) =>
    ts.isLiteralExpression(node) || node.kind === ts.SyntaxKind.UndefinedKeyword || node.getText() === "undefined" ||
    node.getText() === "null" ||
    // A token's prefix is public (token lists and the UI show it): records are picked by it before the hash is compared.
    ts.isTypeOfExpression(node) || /\.(length|kind|code|id|name|_tag|type|bridge|prefix)$/.test(node.getText()) ||
    ts.isPrefixUnaryExpression(node)
  const visit = (node: ts.Node) => {
    if (
      ts.isBinaryExpression(node) &&
      [
        ts.SyntaxKind.EqualsEqualsEqualsToken,
        ts.SyntaxKind.ExclamationEqualsEqualsToken,
        ts.SyntaxKind.EqualsEqualsToken,
        ts.SyntaxKind.ExclamationEqualsToken
      ].includes(node.operatorToken.kind)
    ) {
      const sides = [node.left, node.right]
      if (!sides.some(harmless) && sides.some((side) => secretName.test(side.getText()))) {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("constant-time comparison (D-31)", () => {
  it("every comparison of a token hash, the UI key, the UI session and a cursor's signature goes through timingSafeEqual; none through ===", () => {
    const files = [
      "src/services/Tokens.ts",
      "src/http/ui/UiAccess.ts",
      "src/http/ui/UiListener.ts",
      "src/http/Cursor.ts",
      "src/services/RequestStates.ts"
    ].map((file) => join(ROOT, file))
    const sources = Object.fromEntries(files.map((file) => [file, readFileSync(file, "utf8")]))
    // The comparers themselves: each ends in crypto's timingSafeEqual on equal-length buffers.
    expect(sources[join(ROOT, "src/services/Tokens.ts")]).toMatch(/timingSafeEqual\(stored, presented\)/)
    expect(sources[join(ROOT, "src/http/ui/UiAccess.ts")]).toMatch(
      /export const sameSecret[\s\S]*?timingSafeEqual\(a, b\)/
    )
    expect(sources[join(ROOT, "src/http/ui/UiListener.ts")]).toMatch(/sameSecret\(presentedKey, key\)/)
    expect(sources[join(ROOT, "src/http/ui/UiListener.ts")]).toMatch(
      /sameSecret\(cookieValue\(req\.headers\.cookie, UI_COOKIE\), session\)/
    )
    // requestState is an HS256 JWT verified by jose, whose HMAC check is constant-time.
    expect(sources[join(ROOT, "src/services/RequestStates.ts")]).toMatch(/jwtVerify\(/)
    expect(files.flatMap(plainSecretComparisons)).toEqual([])
  })
})

describe("what this part wrote", () => {
  it(
    "C7.2-b no configured password, API key or token in any log, activity row, error or UI API answer; support files 0600 in a 0700 directory",
    async () => {
      // Errors from every connection whose database does not answer, through MCP and the UI API, all kept for the scan.
      const call = (body: unknown) =>
        postMcp(serve.process.url, body, { authorization: `Bearer ${serve.defaultToken}` })
      for (const id of ["sec-pg", "sec-mysql", "sec-search", serve.sampleId]) {
        answers.push(
          (await call(modernRequest("tools/call", { name: "list_tables", arguments: { connection_id: id } }))).json
        )
        answers.push(
          (await call(
            modernRequest("tools/call", { name: "execute_query", arguments: { connection_id: id, query: "SELECT 1" } })
          )).json
        )
        answers.push((await call(modernRequest("resources/list"))).json)
        answers.push((await uiApi(serve, `/api/connections/${id}/status`)).text)
        answers.push((await uiApi(serve, `/api/connections/${id}/tables`)).text)
        answers.push((await uiApi(serve, `/api/connections/${id}/dashboard`)).text)
      }
      for (
        const path of [
          "/api/status",
          "/api/settings",
          "/api/connections",
          "/api/tokens",
          "/api/clients",
          "/api/activity",
          "/api/approvals",
          "/api/drivers"
        ]
      ) answers.push((await uiApi(serve, path)).text)
      const created = await uiApi(serve, "/api/tokens", {
        method: "POST",
        body: { name: "shown once", access: "readOnly", connections: "all", expiresInDays: null }
      })
      registerSecret("security", "token", created.json.value)
      answers.push((await uiApi(serve, "/api/tokens")).text, (await uiApi(serve, "/api/activity")).text)
      writeFileSync(join(directory, "answers.json"), JSON.stringify(answers, null, 1), { mode: 0o600 })
      await serve.process.stop()

      const secrets = readSecrets(runRoot()).filter((secret) => secret.part === "security")
      const scan = scanForSecrets([directory], secrets)
      const modes = fileModeProblems(directory)
      reportFigures("security", [
        {
          name: "Host and Origin variants refused",
          value: answers.filter((answer) => (answer as { status?: number }).status === 403).length
        },
        { name: "secrets configured", value: secrets.length },
        { name: "files scanned", value: scan.files },
        { name: "secrets found", value: scan.findings.length, required: "0", ok: scan.findings.length === 0 },
        {
          name: "support files with a wrong mode",
          value: modes.problems.length,
          required: "0",
          ok: modes.problems.length === 0
        }
      ], { findings: scan.findings, modes: modes.problems })
      expect(secrets.map((secret) => secret.kind)).toEqual(
        expect.arrayContaining([
          "connection password",
          "connection apiKey",
          "token Default",
          "bridge token",
          "ui key",
          "ui session",
          "token"
        ])
      )
      expect(scan.files).toBeGreaterThan(5)
      expect(scan.findings).toEqual([])
      expect(modes.checked).toBeGreaterThan(5)
      expect(modes.problems).toEqual([])
      expect(readdirSync(serve.home)).toEqual(
        expect.arrayContaining(["tokens.json", "connections.json", "settings.json", "activity.db"])
      )
    },
    120_000
  )
})
