// A PostgreSQL and a MariaDB connection behind a bastion reached through a jump host, both named by an SSH config
// alias, over MCP: queries, browsing, the approval's dry-run preview and cancellation all go through the tunnel
// (the sshd logs show the forwarded channels); then the faults: the SSH server killed or stalled, a jump host that
// refuses, a sign-in that fails, a host key that changes — each a tool error naming the connection and the SSH host,
// the process still serving, no database session left behind, and the next call answering.
import { randomUUID } from "node:crypto"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { type MariadbServer, mariadbAvailable, runningStatements, startMariadb } from "../support/MariadbHarness.ts"
import {
  backendsSettle,
  cancelledByRequest,
  eventually,
  type PostgresServer,
  postgresAvailable,
  startPostgres
} from "../support/PostgresHarness.ts"
import { expectServing } from "../support/PostgresMcp.ts"
import { describeWhenInstalled } from "../support/InstalledSuite.ts"
import { type KeyPair, makeKey, type SshServer, sshdAvailable, startSshd } from "../support/SshHarness.ts"
import {
  modernRequest,
  postMcp,
  type RawResponse,
  startTestServer,
  tempHome,
  type TestServer
} from "../support/TestServer.ts"

const describeTunnels = describeWhenInstalled(
  sshdAvailable && postgresAvailable && mariadbAvailable,
  "sshd, PostgreSQL and MariaDB are needed (CI installs them)"
)

describeTunnels("SQL connections through an SSH jump host and bastion, over MCP", () => {
  let postgres: PostgresServer
  let mariadb: MariadbServer
  let jump: SshServer
  let bastion: SshServer
  let fresh: SshServer
  let key: KeyPair
  let server: TestServer
  const asked: Array<PendingApproval> = []
  let answer: (approval: PendingApproval) => ApprovalDecision | "never" = () => "approved"
  const ids = {
    pg: randomUUID(),
    maria: randomUUID(),
    badJump: randomUUID(),
    badKey: randomUUID(),
    fresh: randomUUID()
  }
  const saved: Record<string, string | undefined> = {}

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "dbdesk-ssh-mcp-"))
    key = makeKey(dir, "ed25519")
    ;[postgres, mariadb, jump, bastion, fresh] = await Promise.all([
      startPostgres(),
      startMariadb(),
      startSshd({ authorizedKeys: [key.publicLine] }),
      startSshd({ authorizedKeys: [key.publicLine] }),
      startSshd({ authorizedKeys: [key.publicLine] })
    ])
    await postgres.sql(
      "CREATE TABLE t (id int PRIMARY KEY, label text); INSERT INTO t VALUES (1, 'one'), (2, 'two'); GRANT SELECT, INSERT, UPDATE, DELETE ON t TO PUBLIC"
    )
    await mariadb.admin().query(
      "CREATE TABLE items (id INT PRIMARY KEY, label VARCHAR(20)); INSERT INTO items VALUES (1, 'one'), (2, 'two')"
    )
    const config = join(dir, "config")
    writeFileSync(
      config,
      [
        "Host jump-host",
        "  HostName 127.0.0.1",
        `  Port ${jump.port}`,
        "  User root",
        `  IdentityFile ${key.privateFile}`,
        "Host db-bastion",
        "  HostName 127.0.0.1",
        `  Port ${bastion.port}`,
        "  User root",
        `  IdentityFile ${key.privateFile}`,
        "  ProxyJump jump-host",
        ""
      ].join("\n")
    )
    const knownHosts = join(dir, "known_hosts")
    writeFileSync(knownHosts, `${jump.hashedKnownHostsLine()}\n${bastion.knownHostsLine()}\n`)
    for (const name of ["DBDESK_SSH_CONFIG", "DBDESK_SSH_KNOWN_HOSTS", "SSH_AUTH_SOCK"]) saved[name] = process.env[name]
    process.env["DBDESK_SSH_CONFIG"] = config
    process.env["DBDESK_SSH_KNOWN_HOSTS"] = knownHosts
    delete process.env["SSH_AUTH_SOCK"]
    const access = { externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }
    const home = tempHome()
    writeFileSync(
      join(home, "connections.json"),
      JSON.stringify({
        version: 1,
        connections: [
          {
            id: ids.pg,
            name: "Orders PG",
            type: "postgresql",
            host: "127.0.0.1",
            port: postgres.port,
            database: postgres.database,
            user: postgres.user,
            password: postgres.password,
            sslMode: "disable",
            ssh: { host: "db-bastion" },
            ...access
          },
          {
            id: ids.maria,
            name: "Shop Maria",
            type: "mysql",
            host: "127.0.0.1",
            port: mariadb.port,
            database: mariadb.database,
            user: mariadb.user,
            password: mariadb.password,
            sslMode: "disabled",
            ssh: { host: "db-bastion" },
            ...access
          },
          {
            id: ids.badJump,
            name: "Behind a dead jump",
            type: "postgresql",
            host: "127.0.0.1",
            port: postgres.port,
            database: postgres.database,
            user: postgres.user,
            password: postgres.password,
            sslMode: "disable",
            ssh: { host: "db-bastion", jumps: ["root@127.0.0.1:1"] },
            ...access
          },
          {
            id: ids.fresh,
            name: "New host",
            type: "postgresql",
            host: "127.0.0.1",
            port: postgres.port,
            database: postgres.database,
            user: postgres.user,
            password: postgres.password,
            sslMode: "disable",
            ssh: { host: "127.0.0.1", port: fresh.port, user: "root", auth: "key", keyFile: key.privateFile },
            ...access
          },
          {
            id: ids.badKey,
            name: "Wrong key",
            type: "postgresql",
            host: "127.0.0.1",
            port: postgres.port,
            database: postgres.database,
            user: postgres.user,
            password: postgres.password,
            sslMode: "disable",
            ssh: { host: "db-bastion", auth: "key", keyFile: makeKey(dir, "ed25519").privateFile },
            ...access
          }
        ]
      }),
      { mode: 0o600 }
    )
    server = await startTestServer({
      home,
      settings: { mcp: { requireAuth: false }, limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 } },
      approvalPrompt: ApprovalPrompt.scripted((approval) => answer(approval), asked),
      token: "readWrite"
    })
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    await Promise.all([postgres?.stop(), mariadb?.stop(), jump?.stop(), bastion?.stop(), fresh?.stop()])
  }, 60_000)

  beforeEach(() => {
    asked.length = 0
    answer = () => "approved"
  })

  const call = (connection: string, name: string, args: Record<string, unknown>, id: string | number = 1) =>
    postMcp(server.url, modernRequest("tools/call", { name, arguments: { connection_id: connection, ...args } }, id), {
      authorization: `Bearer ${server.token}`
    })
  const ok = async (connection: string, name: string, args: Record<string, unknown>) => {
    const response = await call(connection, name, args)
    expect(response.json.result?.isError, response.text).toBe(false)
    return response.json.result.structuredContent
  }
  const toolError = (response: RawResponse): string => {
    expect(response.json.result?.isError, response.text).toBe(true)
    return response.json.result.content[0].text as string
  }
  const cancel = (requestId: string) =>
    postMcp(server.url, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: {
        requestId,
        reason: "test",
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    }, { authorization: `Bearer ${server.token}` })
  const bastionName = () => `db-bastion (127.0.0.1:${bastion.port})`
  const pgRow = async () =>
    expect((await ok(ids.pg, "execute_query", { query: "SELECT label FROM t WHERE id = 2" })).rows).toEqual([["two"]])
  const mariaRow = async () =>
    expect((await ok(ids.maria, "execute_query", { query: "SELECT label FROM items WHERE id = 2" })).rows).toEqual([[
      "two"
    ]])

  it("PostgreSQL by alias through jump and bastion: execute_query and browse_table, every session a forwarded channel", async () => {
    const before = { jump: jump.forwardsTo(bastion.port), bastion: bastion.forwardsTo(postgres.port) }
    await pgRow()
    expect(
      (await ok(ids.pg, "browse_table", {
        table: "t",
        columns: ["id", "label"],
        sort: [{ column: "id", direction: "asc" }]
      })).rows
    ).toEqual([[1, "one"], [2, "two"]])
    expect(bastion.forwardsTo(postgres.port)).toBeGreaterThan(before.bastion)
    expect(jump.forwardsTo(bastion.port)).toBe(before.jump + 1) // one SSH session for all of it
  })

  it("MariaDB by alias through jump and bastion: execute_query and browse_table", async () => {
    const before = bastion.forwardsTo(mariadb.port)
    await mariaRow()
    expect(
      (await ok(ids.maria, "browse_table", {
        table: "items",
        columns: ["id", "label"],
        sort: [{ column: "id", direction: "asc" }]
      })).rows
    ).toEqual([[1, "one"], [2, "two"]])
    expect(bastion.forwardsTo(mariadb.port)).toBeGreaterThan(before)
  })

  it("the approval dialog's dry-run preview is computed through the tunnel on both engines, nothing changed", async () => {
    answer = () => "denied"
    for (
      const [id, sql] of [[ids.pg, "UPDATE t SET label = 'x' WHERE id = 1"], [
        ids.maria,
        "UPDATE items SET label = 'x' WHERE id = 1"
      ]] as const
    ) {
      asked.length = 0
      const response = await call(id, "execute_query", { query: sql })
      expect(toolError(response)).toMatch(/^denied: /)
      expect(asked[0]?.preview, JSON.stringify(asked)).toBeDefined()
      expect(JSON.stringify(asked[0]?.preview)).toMatch(/1/)
    }
    await pgRow()
    expect((await ok(ids.pg, "execute_query", { query: "SELECT label FROM t WHERE id = 1" })).rows).toEqual([["one"]])
  })

  it("C3.2-d a cancel reaches PostgreSQL through the tunnel: the statement leaves pg_stat_activity within 2 s", async () => {
    const running = call(ids.pg, "execute_query", {
      query: "SELECT pg_sleep(60) /* ssh_cancel */",
      timeout_seconds: 120
    }, "ssh-pg-cancel")
    await eventually(
      async () => (await postgres.sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%ssh_cancel */'")).length > 0,
      "the sleep running"
    )
    const channels = bastion.forwardsTo(postgres.port)
    await cancel("ssh-pg-cancel")
    const answerOf = await running
    expect(answerOf.json.error?.code, answerOf.text).toBe(-33002)
    expect(await backendsSettle(postgres, 2)).toEqual([])
    await eventually(() => cancelledByRequest(postgres, "ssh_cancel"), "the cancel request in the server log")
    expect(bastion.forwardsTo(postgres.port)).toBeGreaterThan(channels) // the cancel request had a channel of its own
    await pgRow()
  })

  it("C3.2-d a cancel reaches MariaDB through the tunnel: KILL QUERY ends it, gone from the processlist within 2 s", async () => {
    const running = call(ids.maria, "execute_query", {
      query: "SELECT SLEEP(60) /* ssh_cancel */",
      timeout_seconds: 120
    }, "ssh-maria-cancel")
    await eventually(async () => (await runningStatements(mariadb, "ssh_cancel")) > 0, "the sleep running")
    await cancel("ssh-maria-cancel")
    const answerOf = await running
    expect(answerOf.json.error?.code, answerOf.text).toBe(-33002)
    const until = Date.now() + 2000
    while ((await runningStatements(mariadb, "ssh_cancel")) > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(await runningStatements(mariadb, "ssh_cancel")).toBe(0)
    await mariaRow()
  })

  it("an unknown host key is asked about in the app's dialog with its SHA256 fingerprint: refused, the call fails; accepted, it is remembered and not asked again", async () => {
    const fingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
      input: fresh.hostKeyLine,
      encoding: "utf8"
    }).split(" ")[1]!
    answer = (approval) => (approval.kind === "host_key" ? "denied" : "approved")
    const refused = toolError(await call(ids.fresh, "execute_query", { query: "SELECT 1" }))
    expect(refused).toContain("'New host'")
    expect(refused).toContain(`you did not accept it`)
    expect(asked.map((approval) => [approval.kind, approval.connectionName])).toEqual([["host_key", "New host"]])
    expect(asked[0]!.message).toContain(fingerprint)
    expect(fresh.log()).not.toContain("Accepted publickey")
    asked.length = 0
    answer = () => "approved"
    expect((await ok(ids.fresh, "execute_query", { query: "SELECT 7 AS n" })).rows).toEqual([[7]])
    expect(asked.filter((approval) => approval.kind === "host_key")).toHaveLength(1)
    fresh.kill()
    await fresh.restart()
    expect((await ok(ids.fresh, "execute_query", { query: "SELECT 8 AS n" })).rows).toEqual([[8]])
    expect(asked.filter((approval) => approval.kind === "host_key")).toHaveLength(1)
    expect(readFileSync(join(server.home, "known_hosts"), "utf8")).toContain(fresh.knownHostsLine())
  })

  it("fault: the SSH server killed mid-query fails the call naming the connection and the SSH host; nothing left; the next call reconnects", async () => {
    await pgRow()
    await mariaRow()
    const pgCall = call(ids.pg, "execute_query", {
      query: "SELECT pg_sleep(60) /* ssh_killed */",
      timeout_seconds: 120
    })
    const mariaCall = call(ids.maria, "execute_query", {
      query: "SELECT SLEEP(60) /* ssh_killed */",
      timeout_seconds: 120
    })
    await eventually(
      async () =>
        (await postgres.sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%ssh_killed */'")).length > 0 &&
        (await runningStatements(mariadb, "ssh_killed")) > 0,
      "both running"
    )
    bastion.kill()
    for (const [response, name] of [[await pgCall, "Orders PG"], [await mariaCall, "Shop Maria"]] as const) {
      const text = toolError(response)
      expect(text).toContain(`'${name}'`)
      expect(text).toContain(bastionName())
    }
    await expectServing(server.url)
    expect(await backendsSettle(postgres, 2)).toEqual([])
    await eventually(async () => (await runningStatements(mariadb, "ssh_killed")) === 0, "MariaDB's statement ended")
    // While the bastion is down the call fails plainly, and once it is back the next call reconnects.
    expect(toolError(await call(ids.pg, "execute_query", { query: "SELECT 1" }))).toContain(bastionName())
    await bastion.restart()
    await pgRow()
    await mariaRow()
  })

  it("fault: the SSH server killed mid-result (rows already arriving) fails both calls naming the SSH host; nothing left; the next call reconnects", async () => {
    await pgRow()
    await mariaRow()
    const pgCall = call(ids.pg, "execute_query", {
      query: "SELECT g, repeat('x', 20000) AS pad, pg_sleep(0.05) /* ssh_midresult */ FROM generate_series(1, 200) g",
      timeout_seconds: 120,
      max_rows: 500
    })
    const mariaCall = call(ids.maria, "execute_query", {
      query: "SELECT seq, REPEAT('x', 20000) AS pad, SLEEP(0.05) /* ssh_midresult */ FROM seq_1_to_200",
      timeout_seconds: 120,
      max_rows: 500
    })
    await eventually(
      async () =>
        (await postgres.sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%ssh_midresult */%'")).length > 0 &&
        (await runningStatements(mariadb, "ssh_midresult")) > 0,
      "both streaming"
    )
    await new Promise((resolve) => setTimeout(resolve, 1500)) // rows are on their way (each row is flushed: 20 kB)
    bastion.kill()
    for (const [response, name] of [[await pgCall, "Orders PG"], [await mariaCall, "Shop Maria"]] as const) {
      const text = toolError(response)
      expect(text).toContain(`'${name}'`)
      expect(text).toContain(bastionName())
    }
    await expectServing(server.url)
    expect(await backendsSettle(postgres, 2)).toEqual([])
    await eventually(async () => (await runningStatements(mariadb, "ssh_midresult")) === 0, "MariaDB's statement ended")
    await bastion.restart()
    await pgRow()
    await mariaRow()
  })

  it("fault: a stalled SSH session is given up by its keepalives; the next call opens a new one", async () => {
    await pgRow()
    const pgCall = call(ids.pg, "execute_query", {
      query: "SELECT pg_sleep(60) /* ssh_stalled */",
      timeout_seconds: 120
    })
    await eventually(
      async () => (await postgres.sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE '%ssh_stalled */'")).length > 0,
      "running"
    )
    bastion.stall(true)
    try {
      const text = toolError(await pgCall)
      expect(text).toContain("'Orders PG'")
      expect(text).toContain(bastionName())
      await expectServing(server.url)
    } finally {
      bastion.stall(false)
    }
    expect(await backendsSettle(postgres, 5)).toEqual([])
    await pgRow()
  }, 60_000)

  it("fault: a jump host that refuses the connection names the jump host and the connection", async () => {
    const text = toolError(await call(ids.badJump, "execute_query", { query: "SELECT 1" }))
    expect(text).toContain("'Behind a dead jump'")
    expect(text).toContain("cannot reach the SSH host 127.0.0.1:1 of 'Behind a dead jump'")
    await expectServing(server.url)
    await pgRow()
  })

  it("fault: a sign-in the SSH host refuses is a tool error naming the host and the user", async () => {
    const text = toolError(await call(ids.badKey, "execute_query", { query: "SELECT 1" }))
    expect(text).toContain("'Wrong key'")
    expect(text).toContain(`the SSH host ${bastionName()} of 'Wrong key' refused the sign-in of root`)
    await pgRow()
  })

  it("fault: the host key changing between two calls is refused with both fingerprints; never asked, never used", async () => {
    await pgRow()
    await bastion.restart({ newHostKey: true })
    const text = toolError(await call(ids.pg, "execute_query", { query: "SELECT 1" }))
    expect(text).toContain("'Orders PG'")
    expect(text).toMatch(/has changed: it was SHA256:\S+ .* and is now SHA256:/)
    expect(asked.filter((approval) => approval.kind === "host_key")).toEqual([])
    expect(bastion.log()).not.toContain("Accepted publickey")
    await expectServing(server.url)
    expect(await backendsSettle(postgres, 2)).toEqual([])
  })
})
