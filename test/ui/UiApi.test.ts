import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect } from "effect"
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { QueryHistory } from "../../src/services/QueryHistory.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

/** Node-side tests of the UI server (D-4) and of each UI API route family. */
describe("UI server and API", () => {
  let server: TestServer
  let origin: string
  let launchUrl: string
  let cookie: string
  beforeAll(async () => {
    server = await startTestServer({ token: "readWrite", settings: { ui: { port: 0 } } })
    const ui = Context.get(server.context, UiAddress)
    origin = ui.origin
    launchUrl = ui.launchUrl
    const exchange = await fetch(launchUrl, { redirect: "manual" })
    cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
  })
  afterAll(() => server?.stop())

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, { ...init, headers: { cookie, "content-type": "application/json", ...init.headers } })
  const json = async (path: string, init: RequestInit = {}) => (await api(path, init)).json()

  /** fetch cannot send another Host header, so this one goes through node:http. */
  const withHost = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${origin}/api/status`, { headers: { host, cookie } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.end()
    })

  it("the key is exchanged for an HttpOnly SameSite=Strict cookie and a redirect without the key; a wrong key gets nothing", async () => {
    const exchange = await fetch(launchUrl, { redirect: "manual" })
    expect(exchange.status).toBe(302)
    expect(exchange.headers.get("location")).toBe("/")
    expect(exchange.headers.get("set-cookie")).toMatch(/^dbdesk_ui=[\w-]+; HttpOnly; SameSite=Strict; Path=\/$/)
    const wrong = await fetch(`${origin}/?key=nope`, { redirect: "manual" })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get("set-cookie")).toBeNull()
    expect((await fetch(`${origin}/api/status`)).status).toBe(401)
    expect((await fetch(`${origin}/`)).status).toBe(401)
    expect((await api("/api/status")).status).toBe(200)
    expect(launchUrl.startsWith(origin)).toBe(true)
  })

  it("Host must be loopback with the bound port, and Origin (when sent) the UI's own, else 403", async () => {
    const port = new URL(origin).port
    expect(await withHost(`127.0.0.1:${port}`)).toBe(200)
    expect(await withHost(`localhost:${port}`)).toBe(200)
    expect(await withHost("evil.example")).toBe(403)
    expect(await withHost(`127.0.0.1:${Number(port) + 1}`)).toBe(403)
    expect((await api("/api/status", { headers: { origin } })).status).toBe(200)
    expect((await api("/api/status", { headers: { origin: "https://claude.ai" } })).status).toBe(403)
    expect((await api("/api/tokens", { method: "POST", headers: { origin: "http://localhost:1" }, body: "{}" })).status)
      .toBe(403)
  })

  it("status names the MCP endpoint and the UI origin; serverInfo.websiteUrl is the bound UI origin", async () => {
    const status = await json("/api/status")
    expect(status.endpoint).toBe(server.url)
    expect(status.uiUrl).toBe(origin)
    expect(status.modernVersions).toEqual(["2026-07-28"])
  })

  it("connections: a password is stored but never returned, kept on edit when left empty; bad input is named", async () => {
    const added = await json("/api/connections", {
      method: "POST",
      body: JSON.stringify({
        name: "pg",
        type: "postgresql",
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "writes",
        host: "127.0.0.1",
        database: "app",
        user: "me",
        password: "s3cret-pw"
      })
    })
    expect(added.hasPassword).toBe(true)
    expect(JSON.stringify(added)).not.toContain("s3cret-pw")
    const edited = await json(`/api/connections/${added.id}`, {
      method: "PUT",
      body: JSON.stringify({
        name: "pg2",
        type: "postgresql",
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "all",
        host: "127.0.0.1",
        database: "app",
        user: "me"
      })
    })
    expect(edited).toMatchObject({ name: "pg2", confirmQueries: "all", hasPassword: true })
    const list = await (await api("/api/connections")).text()
    expect(list).not.toContain("s3cret-pw")
    const bad = await api("/api/connections", {
      method: "POST",
      body: JSON.stringify({
        name: "x",
        type: "sqlite",
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "writes"
      })
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ _tag: "UiError", message: "Enter the path of the SQLite database file." })
    const search = await api("/api/connections", {
      method: "POST",
      body: JSON.stringify({
        name: "ts",
        type: "search",
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "writes",
        host: "h",
        apiKey: "k"
      })
    })
    expect((await search.json()).message).toMatch(/Typesense driver is not installed/)
    expect((await api(`/api/connections/${added.id}`, { method: "DELETE" })).status).toBe(204)
  })

  it("browse: a sorted, filtered page with its total; the console asks before a write and records in the history as ui", async () => {
    const [sample] = await json("/api/connections")
    const page = await json(`/api/connections/${sample.id}/tables/products/rows`, {
      method: "POST",
      body: JSON.stringify({
        filters: [{ column: "id", operator: "<=", value: "5" }],
        logic: "and",
        caseSensitive: false,
        sort: [{ column: "id", direction: "desc" }],
        offset: 0,
        limit: 1000
      })
    })
    expect(page.total).toBe(5)
    expect(page.rows.map((row: Array<unknown>) => row[0])).toEqual([5, 4, 3, 2, 1])
    const ask = await json(`/api/connections/${sample.id}/console`, {
      method: "POST",
      body: JSON.stringify({ text: "UPDATE products SET name = name WHERE id = 1", confirmed: false })
    })
    expect(ask._tag).toBe("NeedsConfirmation")
    const ran = await json(`/api/connections/${sample.id}/console`, {
      method: "POST",
      body: JSON.stringify({ text: "UPDATE products SET name = name WHERE id = 1", confirmed: true })
    })
    expect(ran).toMatchObject({ _tag: "Grid", rowsAffected: 1 })
    const history = await Effect.runPromise(Context.get(server.context, QueryHistory).recent(sample.id, 5))
    expect(history[0]).toMatchObject({
      text: "UPDATE products SET name = name WHERE id = 1",
      source: "ui",
      outcome: "success"
    })
    const missing = await api(`/api/connections/${sample.id}/tables/nope/rows`, {
      method: "POST",
      body: JSON.stringify({ filters: [], logic: "and", caseSensitive: false, sort: [], offset: 0, limit: 10 })
    })
    expect(missing.status).toBe(400)
  })

  it("curated tools: the panel lists tools.json and disables or enables a tool; an invalid file is reported, not served", async () => {
    const file = join(server.home, "tools.json")
    const tool = {
      name: "one_row",
      description: "One row",
      connection: "Sample (SQLite)",
      sql: "SELECT :n AS n",
      parameters: [{ name: "n", type: "integer" }]
    }
    writeFileSync(file, JSON.stringify({ version: 1, tools: [tool] }))
    expect(await json("/api/curated-tools")).toEqual({ tools: [tool], problem: null })
    expect(
      (await api("/api/curated-tools/one_row/disabled", { method: "POST", body: JSON.stringify({ disabled: true }) }))
        .status
    ).toBe(204)
    expect(JSON.parse(readFileSync(file, "utf8")).tools[0].disabled).toBe(true)
    expect(
      (await api("/api/curated-tools/one_row/disabled", { method: "POST", body: JSON.stringify({ disabled: false }) }))
        .status
    ).toBe(204)
    expect(JSON.parse(readFileSync(file, "utf8")).tools[0]).toEqual(tool)
    writeFileSync(file, "{\n  \"version\": 2\n}")
    const broken = await json("/api/curated-tools")
    expect(broken.problem).toMatch(/^tools.json is not in force: line \d+: /)
    expect(
      (await api("/api/curated-tools/one_row/disabled", { method: "POST", body: JSON.stringify({ disabled: true }) }))
        .status
    ).toBe(400)
    rmSync(file)
  })

  it("D-90: saving a curated tool checks it as the CLI does (name rules, built-ins, placeholders, the statement's policy) and replaces one in place", async () => {
    const file = join(server.home, "tools.json")
    const tool = {
      name: "one_row",
      description: "One row",
      connection: "Sample (SQLite)",
      sql: "SELECT :n AS n",
      parameters: [{ name: "n", type: "integer" }]
    }
    const save = (body: unknown) => api("/api/curated-tools", { method: "POST", body: JSON.stringify(body) })
    const refusal = async (body: unknown) => {
      const response = await save(body)
      expect(response.status).toBe(400)
      return ((await response.json()) as { message: string }).message
    }
    const saved = await save({ tool, replacing: null })
    expect(saved.status).toBe(200)
    expect(((await saved.json()) as { message: string }).message).toMatch(
      /^Saved the tool one_row on Sample \(SQLite\): it reads/
    )
    expect(await refusal({ tool, replacing: null })).toBe("A curated tool is already named one_row.")
    expect(await refusal({ tool: { ...tool, name: "execute_query" }, replacing: null })).toContain(
      "execute_query is the name of a built-in tool"
    )
    expect(await refusal({ tool: { ...tool, name: "two rows" }, replacing: null })).toContain(
      "must be 1 to 128 letters, digits, _, - or ."
    )
    expect(await refusal({ tool: { ...tool, name: "other", sql: "SELECT :n, :m" }, replacing: null })).toContain(
      "the statement uses :m, which is not a declared parameter"
    )
    expect(
      await refusal({ tool: { ...tool, name: "dropper", sql: "DROP TABLE orders", parameters: [] }, replacing: null })
    ).toContain("cannot drop or truncate data")
    const changed = { ...tool, description: "One row, changed", disabled: true }
    expect((await save({ tool: changed, replacing: "one_row" })).status).toBe(200)
    expect(JSON.parse(readFileSync(file, "utf8")).tools).toEqual([changed])
    rmSync(file)
  })

  it("tokens: a toolset chosen at creation is stored and listed (the lean preset or tool names)", async () => {
    const created = await json("/api/tokens", {
      method: "POST",
      body: JSON.stringify({
        name: "lean api",
        access: "readOnly",
        connections: "all",
        expiresInDays: null,
        tools: ["lean"]
      })
    })
    expect(created.token.tools).toEqual(["lean"])
    const listed = (await json("/api/tokens")) as Array<{ id: string; tools?: ReadonlyArray<string> }>
    expect(listed.find((token) => token.id === created.token.id)?.tools).toEqual(["lean"])
    const every = await json("/api/tokens", {
      method: "POST",
      body: JSON.stringify({
        name: "every tool",
        access: "readOnly",
        connections: "all",
        expiresInDays: null,
        tools: []
      })
    })
    expect(every.token.tools).toBeUndefined()
  })

  it("tokens: the value comes back once at creation and never in the list; revoke marks it revoked", async () => {
    const created = await json("/api/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "api test", access: "readOnly", connections: "all", expiresInDays: 7 })
    })
    expect(created.value).toMatch(/^dbd_/)
    const listed = await (await api("/api/tokens")).text()
    expect(listed).toContain("api test")
    expect(listed).not.toContain(created.value)
    expect((await api(`/api/tokens/${created.token.id}`, { method: "DELETE" })).status).toBe(204)
    const after = (await json("/api/tokens")) as Array<{ id: string; state: string }>
    expect(after.find((token) => token.id === created.token.id)?.state).toBe("revoked")
  })

  it("approvals: the pending dialog arrives on /api/events and a POST answers it; activity and its CSV record the call", async () => {
    const [sample] = await json("/api/connections")
    const events = await api("/api/events")
    const reader = events.body!.getReader()
    const decoder = new TextDecoder()
    let buffer = ""
    const next = async (): Promise<any> => {
      for (;;) {
        const frames = buffer.split("\n\n")
        const data = frames.slice(0, -1).find((frame) => frame.startsWith("data: "))
        if (data !== undefined) {
          buffer = buffer.slice(buffer.indexOf(data) + data.length + 2)
          return JSON.parse(data.slice(6))
        }
        const chunk = await reader.read()
        buffer += decoder.decode(chunk.value)
      }
    }
    expect(await next()).toEqual({ _tag: "Snapshot", approvals: [] })
    const call = postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: sample.id, query: "UPDATE products SET name = name WHERE id = 2" }
      }),
      { authorization: `Bearer ${server.token}` }
    )
    const pending = await next()
    expect(pending._tag).toBe("Pending")
    expect(pending.approval.statement).toBe("UPDATE products SET name = name WHERE id = 2")
    expect(
      await json(`/api/approvals/${pending.approval.id}`, {
        method: "POST",
        body: JSON.stringify({ decision: "approved" })
      })
    ).toEqual({ answered: true })
    expect(await next()).toEqual({ _tag: "Settled", id: pending.approval.id, decision: "approved" })
    expect((await call).json.result.structuredContent.rows_affected).toBe(1)
    await reader.cancel()
    expect(
      await json(`/api/approvals/${pending.approval.id}`, {
        method: "POST",
        body: JSON.stringify({ decision: "denied" })
      })
    ).toEqual({ answered: false })
    const activity = (await json("/api/activity?category=approval")) as Array<{ category: string }>
    expect(activity.length).toBeGreaterThan(0)
    expect(new Set(activity.map((entry) => entry.category))).toEqual(new Set(["approval"]))
    const csv = await api("/api/activity.csv?category=tool")
    expect(csv.headers.get("content-type")).toContain("text/csv")
    expect(await csv.text()).toContain("execute_query")
  })

  it("settings: a change is saved and read back", async () => {
    const saved = await json("/api/settings", {
      method: "PATCH",
      body: JSON.stringify({ limits: { queryTimeoutSeconds: 12 } })
    })
    expect(saved.limits.queryTimeoutSeconds).toBe(12)
    expect((await json("/api/settings")).limits.queryTimeoutSeconds).toBe(12)
    const bad = await api("/api/settings", {
      method: "PATCH",
      body: JSON.stringify({ limits: { queryTimeoutSeconds: 0 } })
    })
    expect(bad.status).toBe(400)
  })

  it("C8-f settings: a UI change of limits.requestsPerMinute applies to the MCP endpoint at once (D-11)", async () => {
    const created = await json("/api/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "rate", access: "readOnly", connections: "all", expiresInDays: null })
    })
    try {
      await json("/api/settings", { method: "PATCH", body: JSON.stringify({ limits: { requestsPerMinute: 2 } }) })
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) {
        statuses.push(
          (await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${created.value}` })).status
        )
      }
      expect(statuses).toEqual([200, 200, 429])
    } finally {
      await json("/api/settings", { method: "PATCH", body: JSON.stringify({ limits: { requestsPerMinute: 240 } }) })
    }
  })
})
