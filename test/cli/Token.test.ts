import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { modernRequest, postMcp, startTestServer, tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")
const children: Array<ChildProcess> = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

const cli = (home: string, ...args: Array<string>) => {
  const result = spawnSync(process.execPath, [bin, "token", ...args, "--home", home], { encoding: "utf8" })
  return { status: result.status, output: result.stdout + result.stderr }
}

const serve = (home: string) => {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--home", home], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const waitFor = async (pattern: RegExp) => {
    for (let i = 0; i < 300 && !pattern.test(output); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    return output
  }
  return { child, waitFor, output: () => output }
}

const TOKEN = /dbd_[A-Za-z0-9_-]{43}/g

/** Every file the run left in the support directory, except the handshake (which holds the bridge token by design). */
const supportFiles = (home: string) =>
  readdirSync(home).filter((name) => name !== "mcp-handshake.json" && statSync(join(home, name)).isFile()).map((
    name
  ) => ({ name, text: readFileSync(join(home, name), "latin1") }))

describe("dbdesk token (D-35)", () => {
  it("C5-g C5-i serve mints and prints a Default token once; create/list/revoke work against the running server; no token value is ever written anywhere else", async () => {
    const home = tempHome()
    const server = serve(home)
    const started = await server.waitFor(/Default[\s\S]*dbd_[A-Za-z0-9_-]{43}/)
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(started)![1]!
    const defaultValue = started.match(TOKEN)![0]
    const created = cli(home, "create", "--name", "scan", "--access", "readOnly", "--expires", "30d")
    expect(created.status).toBe(0)
    const value = created.output.match(TOKEN)![0]
    expect(created.output.match(TOKEN)).toHaveLength(1)

    const bodies: Array<string> = []
    for (const authorization of [`Bearer ${value}`, `Bearer ${defaultValue}`, `Bearer ${value}x`, `Basic ${value}`]) {
      const listed = await postMcp(url, modernRequest("tools/list"), { authorization })
      bodies.push(listed.text, JSON.stringify([...listed.headers]))
    }
    const write = await postMcp(
      url,
      modernRequest("tools/call", {
        name: "insert_rows",
        arguments: { connection_id: "x", table: "t", columns: ["a"], rows: [[1]] }
      }),
      { authorization: `Bearer ${value}` }
    )
    expect(write.status).toBe(403)
    bodies.push(write.text)

    const listing = cli(home, "list")
    const json = cli(home, "list", "--json")
    const rows = JSON.parse(json.output)
    expect(rows.map((row: any) => [row.name, row.access, row.state])).toStrictEqual([
      ["Default", "readWrite", "active"],
      ["scan", "readOnly", "active"]
    ])
    expect(rows[1].lastUsedAt).not.toBeNull()
    expect(Object.keys(rows[0])).not.toContain("hash")

    const revoked = cli(home, "revoke", rows[1].id)
    expect(revoked.status).toBe(0)
    let after = await postMcp(url, modernRequest("tools/list"), { authorization: `Bearer ${value}` })
    for (let i = 0; i < 100 && after.status !== 401; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      after = await postMcp(url, modernRequest("tools/list"), { authorization: `Bearer ${value}` })
    }
    expect(after.status).toBe(401)
    bodies.push(after.text)
    expect(cli(home, "revoke", "no-such-id").status).toBe(1)

    server.child.kill("SIGTERM")
    await new Promise((resolve) => server.child.once("exit", resolve))
    const restarted = serve(home)
    await restarted.waitFor(/listening on/)
    restarted.child.kill("SIGTERM")
    await new Promise((resolve) => restarted.child.once("exit", resolve))

    expect(server.output().match(TOKEN)).toStrictEqual([defaultValue])
    expect(restarted.output()).not.toMatch(TOKEN)
    const everything = [
      server.output().replace(defaultValue, ""),
      restarted.output(),
      listing.output,
      json.output,
      revoked.output,
      ...bodies,
      ...supportFiles(home).map((file) => file.text)
    ]
    expect(supportFiles(home).map((file) => file.name)).toContain("tokens.json")
    for (const secret of [value, defaultValue]) {
      for (const text of everything) expect(text.includes(secret)).toBe(false)
    }
    expect(statSync(join(home, "tokens.json")).mode & 0o777).toBe(0o600)
  })

  it("create refuses a past date, an unknown level and an empty name without writing anything", () => {
    const home = tempHome()
    expect(cli(home, "create", "--name", "x", "--access", "readOnly", "--expires", "2020-01-01").status).toBe(1)
    expect(cli(home, "create", "--name", "x", "--access", "root").status).not.toBe(0)
    expect(cli(home, "create", "--name", " ", "--access", "readOnly").status).toBe(1)
    expect(readdirSync(home)).not.toContain("tokens.json")
    expect(cli(home, "list").output).toMatch(/No tokens/)
  })
})

describe("token delete and --connections", () => {
  it("token delete removes the token for good: a running server refuses it at once and token list no longer shows it", async () => {
    const server = await startTestServer({ ui: false })
    try {
      const created = await runInProcess(
        "token",
        "create",
        "--name",
        "gone",
        "--access",
        "readOnly",
        "--home",
        server.home
      )
      expect(created.code).toBe(0)
      const value = created.stdout.match(TOKEN)![0]
      const id =
        JSON.parse((await runInProcess("token", "list", "--json", "--home", server.home)).stdout).find((row: any) =>
          row.name === "gone"
        ).id
      expect((await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${value}` })).status)
        .toBe(200)

      const deleted = await runInProcess("token", "delete", id, "--home", server.home)
      expect([deleted.code, deleted.stdout]).toStrictEqual([
        0,
        `Deleted token "gone" (id ${id}); a running server cancels its requests within seconds.\n`
      ])
      const after = await postMcp(server.url, modernRequest("tools/list"), { authorization: `Bearer ${value}` })
      expect([after.status, after.json.error.code]).toStrictEqual([401, -33009])
      expect(
        JSON.parse((await runInProcess("token", "list", "--json", "--all", "--home", server.home)).stdout).map((
          row: any
        ) => row.id)
      ).not.toContain(id)
      const again = await runInProcess("token", "delete", id, "--home", server.home)
      expect([again.code, again.stderr]).toStrictEqual([
        1,
        `No token has the id ${id}; dbdesk token list shows the ids\n`
      ])
    } finally {
      await server.stop()
    }
  })

  it("--connections takes ids or names of connections that exist; anything else is refused and no token is written", async () => {
    const fresh = tempHome()
    const none = await runInProcess(
      "token",
      "create",
      "--name",
      "x",
      "--access",
      "readOnly",
      "--connections",
      "abc",
      "--home",
      fresh
    )
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^--connections: there are no connections yet \(.*connections\.json does not exist\)/)
    expect(readdirSync(fresh)).not.toContain("tokens.json")

    const server = await startTestServer({ ui: false })
    try {
      const sample = JSON.parse((await runInProcess("connection", "list", "--json", "--home", server.home)).stdout)[0]
      const unknown = await runInProcess(
        "token",
        "create",
        "--name",
        "x",
        "--access",
        "readOnly",
        "--connections",
        `${sample.id},no-such-id`,
        "--home",
        server.home
      )
      expect([unknown.code, unknown.stderr]).toStrictEqual([
        1,
        `--connections: no connection has the id or name "no-such-id"; the connections are ${sample.id} (Sample (SQLite))\n`
      ])
      expect(JSON.parse((await runInProcess("token", "list", "--json", "--home", server.home)).stdout)).toStrictEqual(
        []
      )

      const byName = await runInProcess(
        "token",
        "create",
        "--name",
        "scoped",
        "--access",
        "readOnly",
        "--connections",
        "Sample (SQLite)",
        "--home",
        server.home
      )
      expect(byName.code).toBe(0)
      const rows = JSON.parse((await runInProcess("token", "list", "--json", "--home", server.home)).stdout)
      expect(rows.map((row: any) => [row.name, row.connections])).toStrictEqual([["scoped", [sample.id]]])
    } finally {
      await server.stop()
    }
  })
})
