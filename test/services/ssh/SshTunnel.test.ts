// The tunnel itself against Debian's sshd: a jump host and a bastion, host keys from known_hosts (plain and hashed),
// an unknown key asked about once, a changed key refused, and every handshake checked.
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type HostKeyAnswer, type HostKeyQuestion, makeHostKeyPolicy } from "../../../src/services/ssh/HostKeys.ts"
import { resolveHops, type SshFiles } from "../../../src/services/ssh/SshHops.ts"
import { makeTunnel, type Tunnel, TunnelFailure } from "../../../src/services/ssh/Tunnel.ts"
import { type PostgresServer, startPostgres } from "../../support/PostgresHarness.ts"
import { describePostgres } from "../../support/PostgresSuite.ts"
import { describeWhenInstalled } from "../../support/InstalledSuite.ts"
import {
  type KeyPair,
  makeKey,
  type SshServer,
  SSHD_MISSING,
  sshdAvailable,
  startSshd
} from "../../support/SshHarness.ts"

const describeSsh = sshdAvailable ? describePostgres : describeWhenInstalled(false, SSHD_MISSING)

describeSsh("SSH tunnel through a jump host and a bastion (Debian's sshd)", () => {
  let postgres: PostgresServer
  let jump: SshServer
  let bastion: SshServer
  let keys: Record<"ed25519" | "ecdsa" | "rsa" | "locked", KeyPair>
  let dir: string
  const tunnels: Array<Tunnel> = []

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dbdesk-ssh-test-"))
    keys = {
      ed25519: makeKey(dir, "ed25519"),
      ecdsa: makeKey(dir, "ecdsa"),
      rsa: makeKey(dir, "rsa"),
      locked: makeKey(dir, "ed25519", "open sesame")
    }
    const authorizedKeys = Object.values(keys).map((key) => key.publicLine)
    ;[postgres, jump, bastion] = await Promise.all([
      startPostgres(),
      startSshd({ authorizedKeys }),
      startSshd({ authorizedKeys, hostKeyType: "ecdsa" })
    ])
  }, 120_000)

  afterAll(async () => {
    for (const tunnel of tunnels) tunnel.close()
    await Promise.all([postgres?.stop(), jump?.stop(), bastion?.stop()])
  }, 60_000)

  /** A config file with both hosts as aliases, and a user known_hosts listing `known` lines. */
  const files = (known: ReadonlyArray<string>): SshFiles => {
    const config = join(dir, `config-${Math.random()}`)
    writeFileSync(
      config,
      [
        "Host jump-host",
        `  HostName 127.0.0.1`,
        `  Port ${jump.port}`,
        "  User root",
        `  IdentityFile ${keys.ed25519.privateFile}`,
        "Host db-bastion",
        `  HostName 127.0.0.1`,
        `  Port ${bastion.port}`,
        "  User root",
        `  IdentityFile ${keys.ed25519.privateFile}`,
        "  ProxyJump jump-host",
        ""
      ].join("\n")
    )
    const knownHosts = join(dir, `known-${Math.random()}`)
    writeFileSync(knownHosts, known.map((line) => `${line}\n`).join(""))
    return { config, knownHosts, agent: undefined }
  }

  const tunnelWith = (options: {
    readonly files: SshFiles
    readonly ssh?: Parameters<typeof resolveHops>[0]
    readonly secrets?: Parameters<typeof resolveHops>[1]
    readonly ownFile?: string
    readonly answer?: (question: HostKeyQuestion) => HostKeyAnswer
    readonly asked?: Array<HostKeyQuestion>
    readonly agent?: string
  }) => {
    const tunnel = makeTunnel({
      connection: "Prod",
      hops: resolveHops(options.ssh ?? { host: "db-bastion" }, options.secrets ?? {}, options.files),
      target: { host: postgres.host, port: postgres.port },
      hostKeys: makeHostKeyPolicy({
        connectionId: "c1",
        connectionName: "Prod",
        ownFile: options.ownFile ?? join(dir, `own-${Math.random()}`),
        files: options.files,
        ask: options.answer === undefined ? undefined : async (question) => {
          options.asked?.push(question)
          return options.answer!(question)
        }
      }),
      agent: options.agent
    })
    tunnels.push(tunnel)
    return tunnel
  }

  const query = async (tunnel: Tunnel, during?: (peer: string) => void): Promise<string> => {
    const client = new pg.Client({
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      stream: tunnel.socket
    })
    client.on("error", () => undefined)
    await client.connect()
    try {
      const result = await client.query<{ peer: number }>("SELECT inet_client_port() AS peer")
      during?.(String(result.rows[0]!.peer))
      return String(result.rows[0]!.peer)
    } finally {
      await client.end()
    }
  }

  /** The process owning the local end of the database session's TCP connection. */
  const ownerOfPort = (port: string): string =>
    execFileSync("ss", ["-Htnp", "state", "established", `( sport = :${port} )`], { encoding: "utf8" })

  it("an alias with ProxyJump reaches PostgreSQL through both hosts (known_hosts hashed and plain): the session's peer is sshd", async () => {
    const tunnel = tunnelWith({ files: files([jump.hashedKnownHostsLine(), bastion.knownHostsLine()]) })
    const before = { jump: jump.forwardsTo(bastion.port), bastion: bastion.forwardsTo(postgres.port) }
    let owner = ""
    await query(tunnel, (peer) => (owner = ownerOfPort(peer)))
    expect(owner).toContain("sshd")
    expect(owner).not.toContain("node")
    expect(jump.forwardsTo(bastion.port)).toBeGreaterThan(before.jump)
    expect(bastion.forwardsTo(postgres.port)).toBeGreaterThan(before.bastion)
    expect(tunnel.path).toBe(`jump-host (127.0.0.1:${jump.port}) → db-bastion (127.0.0.1:${bastion.port})`)
  })

  it("one SSH session serves several database sessions", async () => {
    const tunnel = tunnelWith({ files: files([jump.knownHostsLine(), bastion.knownHostsLine()]) })
    const countSessions = () => (bastion.log().match(/Accepted publickey/g) ?? []).length
    const before = countSessions()
    await Promise.all([query(tunnel), query(tunnel), query(tunnel)])
    expect(countSessions() - before).toBe(1)
  })

  for (const type of ["ecdsa", "rsa"] as const) {
    it(`explicit fields win over the alias: the ${type} key file`, async () => {
      const tunnel = tunnelWith({
        files: files([jump.knownHostsLine(), bastion.knownHostsLine()]),
        ssh: { host: "db-bastion", auth: "key", keyFile: keys[type].privateFile }
      })
      expect(await query(tunnel)).toMatch(/^\d+$/)
    })
  }

  it("the agent (SSH_AUTH_SOCK) signs in; without an agent the sign-in fails saying so", async () => {
    const socket = join(dir, `agent-${Math.random().toString(36).slice(2)}.sock`)
    const agent = spawn("ssh-agent", ["-D", "-a", socket], { stdio: "ignore" })
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      execFileSync("ssh-add", [keys.ecdsa.privateFile], {
        env: { ...process.env, SSH_AUTH_SOCK: socket },
        stdio: "ignore"
      })
      const known = files([jump.knownHostsLine(), bastion.knownHostsLine()])
      const ssh = { host: "127.0.0.1", port: bastion.port, user: "root", auth: "agent" as const, jumps: [] }
      expect(await query(tunnelWith({ files: known, ssh, agent: socket }))).toMatch(/^\d+$/)
      const failure = await tunnelWith({ files: known, ssh }).open().then(
        () => undefined,
        (error: unknown) => error
      ) as TunnelFailure
      expect(failure.stage).toBe("auth")
      expect(failure.message).toContain("no SSH agent is running for dbdesk (SSH_AUTH_SOCK is not set)")
    } finally {
      agent.kill()
    }
  })

  it("an encrypted key signs in with its stored passphrase, and without it fails as an SSH sign-in problem", async () => {
    const known = files([jump.knownHostsLine(), bastion.knownHostsLine()])
    const ssh = {
      host: "127.0.0.1",
      port: bastion.port,
      user: "root",
      auth: "key" as const,
      keyFile: keys.locked.privateFile,
      jumps: []
    }
    expect(await query(tunnelWith({ files: known, ssh, secrets: { passphrase: "open sesame" } }))).toMatch(/^\d+$/)
    const failure = await tunnelWith({ files: known, ssh }).open().then(() => undefined, (error: unknown) => error)
    expect(failure).toBeInstanceOf(TunnelFailure)
    expect((failure as TunnelFailure).stage).toBe("auth")
    expect((failure as TunnelFailure).message).toContain(keys.locked.privateFile)
  })

  it("a key the host does not accept fails at the sign-in, naming the host and user", async () => {
    const other = makeKey(dir, "ed25519")
    const ssh = { host: "db-bastion", auth: "key" as const, keyFile: other.privateFile, jumps: [] as Array<string> }
    const failure = await tunnelWith({ files: files([bastion.knownHostsLine()]), ssh }).open().then(
      () => undefined,
      (error: unknown) => error
    ) as TunnelFailure
    expect(failure.stage).toBe("auth")
    expect(failure.message).toBe(
      `the SSH host db-bastion (127.0.0.1:${bastion.port}) of 'Prod' refused the sign-in of root (key ${other.privateFile})`
    )
  })

  it("an unknown key is asked about once, with its SHA256 fingerprint, then remembered in dbdesk's own file", async () => {
    const ownFile = join(dir, "own-known-hosts")
    const asked: Array<HostKeyQuestion> = []
    const known = files([jump.knownHostsLine()])
    const tunnel = tunnelWith({ files: known, ownFile, asked, answer: () => "approved" })
    await query(tunnel)
    const fingerprint =
      execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], { input: bastion.hostKeyLine, encoding: "utf8" }).split(
        " "
      )[1]
    expect(asked.map((question) => question.fingerprint)).toEqual([fingerprint])
    expect(asked[0]!.message).toContain(fingerprint)
    expect(readFileSync(ownFile, "utf8")).toContain(bastion.knownHostsLine())
    // A new tunnel (a restart) finds it in the file: no second question.
    await query(tunnelWith({ files: known, ownFile, asked, answer: () => "approved" }))
    expect(asked).toHaveLength(1)
  })

  it("an unknown key that is refused, or that nothing can ask about, is not used; the message says how to accept it", async () => {
    const known = files([jump.knownHostsLine()])
    const signIns = () => (bastion.log().match(/Accepted publickey/g) ?? []).length
    const before = signIns()
    const denied = await tunnelWith({ files: known, answer: () => "denied" }).open().then(
      () => undefined,
      (error: unknown) => error
    ) as TunnelFailure
    expect(denied.stage).toBe("hostKey")
    expect(denied.message).toMatch(/you did not accept it/)
    const nobody = await tunnelWith({ files: known }).open().then(
      () => undefined,
      (error: unknown) => error
    ) as TunnelFailure
    expect(nobody.stage).toBe("hostKey")
    expect(nobody.message).toMatch(
      new RegExp(
        `nothing is open to ask you about it: .*connect once with OpenSSH \\(ssh -p ${bastion.port} 127\\.0\\.0\\.1\\), which asks about SHA256:`
      )
    )
    expect(signIns()).toBe(before) // the refused key was never signed in to
  })

  it("the bastion killed under a running query fails it naming the SSH host; the next socket opens a new session", async () => {
    const tunnel = tunnelWith({ files: files([jump.knownHostsLine(), bastion.knownHostsLine()]) })
    const client = new pg.Client({
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      stream: tunnel.socket
    })
    client.on("error", () => undefined)
    await client.connect()
    const running = client.query("SELECT pg_sleep(30)").then(() => "answered", (error: Error) => error.message)
    await new Promise((resolve) => setTimeout(resolve, 300))
    bastion.kill()
    expect(await running).toContain(`db-bastion (127.0.0.1:${bastion.port})`)
    await bastion.restart()
    expect(await query(tunnel)).toMatch(/^\d+$/)
  })

  it("a changed key is refused with the old and new fingerprints and how to accept a legitimate change", async () => {
    const oldLine = bastion.knownHostsLine()
    const known = files([jump.knownHostsLine(), oldLine])
    const oldFingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
      input: bastion.hostKeyLine,
      encoding: "utf8"
    }).split(" ")[1]!
    await bastion.restart({ newHostKey: true })
    const newFingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
      input: bastion.hostKeyLine,
      encoding: "utf8"
    }).split(" ")[1]!
    const asked: Array<HostKeyQuestion> = []
    const failure = await tunnelWith({ files: known, asked, answer: () => "approved" }).open().then(
      () => undefined,
      (error: unknown) => error
    ) as TunnelFailure
    expect(asked).toEqual([]) // a changed key is never asked about: it is refused
    expect(failure.stage).toBe("hostKey")
    expect(failure.message).toContain(oldFingerprint)
    expect(failure.message).toContain(newFingerprint)
    expect(failure.message).toContain(`ssh-keygen -R '[127.0.0.1]:${bastion.port}' -f ${known.knownHosts}`)
    expect(bastion.log()).not.toContain("Accepted publickey")
  })
})
