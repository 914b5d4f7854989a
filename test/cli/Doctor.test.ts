import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultSettings } from "../../src/domain/Settings.ts"
import { startTestServer, tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

/** The AI clients' config files are looked up under HOME: give this file a home of its own. */
const userHome = tempHome("dbdesk-doctor-user-")
const realHome = process.env["HOME"]
beforeAll(() => {
  process.env["HOME"] = userHome
})
afterAll(() => {
  process.env["HOME"] = realHome
})

const doctor = async (home: string) => {
  const run = await runInProcess("doctor", "--json", "--home", home)
  const report = JSON.parse(run.stdout) as {
    ok: boolean
    checks: Array<{ id: string; status: string; detail: string; fix?: string }>
  }
  const byId = (id: string) => report.checks.find((check) => check.id === id)
  return { code: run.code, report, byId }
}

const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

describe("dbdesk doctor (D-78)", () => {
  it("a fresh support directory: only warnings, each with a fix, exit 0, and nothing is created", async () => {
    const home = tempHome()
    const { code, report, byId } = await doctor(home)
    expect(code).toBe(0)
    expect(report.ok).toBe(true)
    expect(report.checks.filter((check) => check.status === "fail")).toStrictEqual([])
    expect(byId("server")).toMatchObject({
      status: "warn",
      detail: "dbdesk is not running (no handshake file)",
      fix: expect.stringContaining("dbdesk serve")
    })
    expect(byId("tokens")).toMatchObject({ status: "warn", fix: expect.stringContaining("dbdesk token create") })
    expect(byId("clients")).toMatchObject({ status: "warn", fix: expect.stringContaining("dbdesk clients install") })
    expect(byId("sqlite")?.status).toBe("ok")
    expect(readdirSync(home)).toStrictEqual([])
    const text = await runInProcess("doctor", "--home", home)
    expect(text.stdout).toMatch(
      /^\[warn\] Running server: dbdesk is not running \(no handshake file\)\n {7}fix: start it with dbdesk serve/m
    )
    expect(text.stdout).toMatch(/All is well \(\d+ warnings above\)\.\n$/)
  })

  it("a broken one: an unreadable tokens file, a dead PostgreSQL connection, open permissions and a client pointing at a missing bridge are each explained with a fix; exit 1", async () => {
    const home = tempHome()
    const port = await closedPort()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [{
          id: "pg-1",
          name: "Warehouse",
          type: "postgresql",
          host: "127.0.0.1",
          port,
          database: "dw",
          user: "etl",
          password: "hunter2-secret"
        }]
      })
    )
    chmodSync(join(home, "connections.json"), 0o644)
    writeFileSync(join(home, "tokens.json"), "{\"version\":1,\"tokens\":[", { mode: 0o600 })
    mkdirSync(join(userHome, ".cursor"), { recursive: true })
    writeFileSync(
      join(userHome, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: { dbdesk: { command: "/nonexistent/node", args: ["/nonexistent/dbdesk-mcp.mjs"] } }
      })
    )

    const { code, report, byId } = await doctor(home)
    expect(code).toBe(1)
    expect(report.ok).toBe(false)
    expect(byId("tokens")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/tokens\.json is not valid: it is not JSON/),
      fix: expect.stringContaining("dbdesk token create")
    })
    expect(byId("connection:pg-1")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(new RegExp(`^postgresql at 127\\.0\\.0\\.1:${port}/dw: .*ECONNREFUSED`)),
      fix: expect.stringContaining("that its server runs")
    })
    expect(byId("file-permissions")).toMatchObject({
      status: "fail",
      detail: "readable by other users: connections.json (0644)",
      fix: `chmod 600 "${join(home, "connections.json")}"`
    })
    expect(byId("client:cursor")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("/nonexistent/node and /nonexistent/dbdesk-mcp.mjs, which does not exist"),
      fix: expect.stringContaining("dbdesk clients install cursor")
    })
    expect(JSON.stringify(report)).not.toContain("hunter2-secret")
  })

  it("sees a running server, and calls a handshake left by a dead process stale", async () => {
    const server = await startTestServer({ ui: false })
    try {
      expect((await doctor(server.home)).byId("server")).toMatchObject({
        status: "ok",
        detail: `dbdesk ${process.pid} answers on ${server.url}`
      })
    } finally {
      await server.stop()
    }
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid
    writeFileSync(
      join(server.home, "mcp-handshake.json"),
      JSON.stringify({
        version: 1,
        port: 1,
        pid: dead,
        instanceId: "00000000-0000-4000-8000-000000000001",
        protocolVersion: "2026-07-28",
        startedAt: new Date().toISOString(),
        uiUrl: "http://127.0.0.1:1",
        bridgeToken: "dbd_x",
        bridgeTokenExpiresAt: new Date().toISOString()
      }),
      { mode: 0o600 }
    )
    const { byId } = await doctor(server.home)
    expect(byId("server")).toMatchObject({
      status: "warn",
      detail: `the handshake file names pid ${dead}, which is not running (the server did not stop cleanly)`,
      fix: "start dbdesk serve: it replaces the stale file"
    })
    expect(
      byId(
        "connection:" +
          JSON.parse((await runInProcess("connection", "list", "--json", "--home", server.home)).stdout)[0].id
      )?.status
    ).toBe("ok")
  })

  it("when another program holds the configured MCP port, it names the port the running server really uses and says who holds the configured one", async () => {
    const holder = net.createServer()
    const held = await new Promise<number>((resolve) =>
      holder.listen(0, "127.0.0.1", () => resolve((holder.address() as net.AddressInfo).port))
    )
    const home = tempHome()
    mkdirSync(home, { recursive: true, mode: 0o700 })
    const settings = defaultSettings()
    writeFileSync(
      join(home, "settings.json"),
      JSON.stringify({ ...settings, mcp: { ...settings.mcp, port: held }, ui: { ...settings.ui, port: 0 } }),
      { mode: 0o600 }
    )
    const server = await startTestServer({ home, ui: false, settings: { mcp: { port: held } } })
    try {
      expect(server.port).not.toBe(held)
      const { byId } = await doctor(home)
      expect(byId("mcp-port")).toMatchObject({
        status: "warn",
        detail: `the running dbdesk uses ${server.port}: the configured ${held} is held by another program`
      })
      expect(byId("mcp-port")?.fix).toMatch(/set mcp\.port in settings\.json/)
    } finally {
      await server.stop()
      holder.close()
    }
  })

  it("an AI client entry that starts npx is broken: npx cannot fetch dbdesk, which is in no registry", async () => {
    const home = tempHome()
    mkdirSync(join(userHome, ".codeium", "windsurf"), { recursive: true })
    const config = join(userHome, ".codeium", "windsurf", "mcp_config.json")
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { dbdesk: { command: "/usr/local/bin/npx", args: ["--yes", "--package=dbdesk", "dbdesk-mcp"] } }
      })
    )
    try {
      const { byId } = await doctor(home)
      expect(byId("client:windsurf")).toMatchObject({
        status: "fail",
        detail: `the dbdesk entry in ${config} starts npx, which cannot fetch dbdesk: it is in no package registry`,
        fix: expect.stringContaining("dbdesk clients install windsurf")
      })
    } finally {
      rmSync(config)
    }
  })
})
