// `dbdesk connection test` on a tunnelled connection says which hop failed: the SSH host's key, the sign-in, or the
// database behind it; an unknown key is asked about on a terminal (anything but y/yes refuses) and, without one,
// refused with how to accept it.
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HostKeyQuestions, terminalHostKeyQuestions } from "../../src/services/ssh/HostKeys.ts"
import { describeWhenInstalled } from "../support/InstalledSuite.ts"
import { type PostgresServer, postgresAvailable, startPostgres } from "../support/PostgresHarness.ts"
import { type KeyPair, makeKey, type SshServer, sshdAvailable, startSshd } from "../support/SshHarness.ts"
import { tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

describeWhenInstalled(sshdAvailable && postgresAvailable, "sshd and PostgreSQL are needed (CI installs them)")(
  "dbdesk connection test through an SSH tunnel",
  () => {
    let postgres: PostgresServer
    let sshd: SshServer
    let key: KeyPair
    let dir: string
    const saved: Record<string, string | undefined> = {}

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "dbdesk-ssh-cli-"))
      key = makeKey(dir, "ed25519")
      ;[postgres, sshd] = await Promise.all([startPostgres(), startSshd({ authorizedKeys: [key.publicLine] })])
      for (const name of ["DBDESK_SSH_CONFIG", "DBDESK_SSH_KNOWN_HOSTS"]) saved[name] = process.env[name]
      process.env["DBDESK_SSH_CONFIG"] = join(dir, "no-config")
    }, 120_000)

    afterAll(async () => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
      await Promise.all([postgres?.stop(), sshd?.stop()])
    }, 60_000)

    const homeWith = (ssh: Record<string, unknown>, port = postgres.port) => {
      const home = tempHome()
      writeFileSync(
        join(home, "connections.json"),
        JSON.stringify({
          version: 1,
          connections: [{
            id: randomUUID(),
            name: "Tunnelled",
            type: "postgresql",
            host: "127.0.0.1",
            port,
            database: postgres.database,
            user: postgres.user,
            password: postgres.password,
            sslMode: "disable",
            ssh
          }]
        }),
        { mode: 0o600 }
      )
      return home
    }
    const viaKey = (keyFile = key.privateFile) => ({
      host: "127.0.0.1",
      port: sshd.port,
      user: "root",
      auth: "key",
      keyFile
    })
    const knownHosts = (lines: ReadonlyArray<string>) => {
      const file = join(dir, `known-${Math.random()}`)
      writeFileSync(file, lines.map((line) => `${line}\n`).join(""))
      process.env["DBDESK_SSH_KNOWN_HOSTS"] = file
    }

    it("an unknown host key without a terminal: failed, with the fingerprint and how to accept it", async () => {
      knownHosts([])
      const fingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
        input: sshd.hostKeyLine,
        encoding: "utf8"
      }).split(" ")[1]!
      const run = await runInProcess("connection", "test", "Tunnelled", "--home", homeWith(viaKey()))
      expect(run.code).toBe(1)
      expect(run.stdout).toContain(
        `the SSH host 127.0.0.1:${sshd.port} of 'Tunnelled' presented a key dbdesk does not know yet (${fingerprint})`
      )
      expect(run.stdout).toContain(`connect once with OpenSSH (ssh -p ${sshd.port} 127.0.0.1)`)
    })

    it("a known key: ok; a key the host refuses: the sign-in hop; a database that does not answer behind the tunnel: the database hop", async () => {
      knownHosts([sshd.knownHostsLine()])
      const ok = await runInProcess("connection", "test", "Tunnelled", "--home", homeWith(viaKey()))
      expect(ok.stdout).toMatch(/^ok: Tunnelled \(postgresql\): Connected \(PostgreSQL /)
      const wrongKey = await runInProcess(
        "connection",
        "test",
        "Tunnelled",
        "--home",
        homeWith(viaKey(makeKey(dir, "ed25519").privateFile))
      )
      expect(wrongKey.code).toBe(1)
      expect(wrongKey.stdout).toContain(
        `the SSH host 127.0.0.1:${sshd.port} of 'Tunnelled' refused the sign-in of root`
      )
      const noDatabase = await runInProcess("connection", "test", "Tunnelled", "--home", homeWith(viaKey(), 1))
      expect(noDatabase.code).toBe(1)
      expect(noDatabase.stdout).toContain(
        `the SSH host 127.0.0.1:${sshd.port} of 'Tunnelled' could not open a connection to the database at 127.0.0.1:1`
      )
    })

    it(
      "doctor lists the tunnel with each SSH host's key state: known is ok, unknown is a warning saying how to accept it",
      async () => {
        knownHosts([sshd.knownHostsLine()])
        const tunnelLine = async () => {
          const run = await runInProcess("doctor", "--home", homeWith(viaKey()), "--json")
          return JSON.parse(run.stdout).checks.find((check: any) => check.id.startsWith("tunnel:"))
        }
        const fingerprint = execFileSync("ssh-keygen", ["-lf", "-", "-E", "sha256"], {
          input: sshd.hostKeyLine,
          encoding: "utf8"
        }).split(" ")[1]!
        expect(await tunnelLine()).toMatchObject({
          title: "SSH tunnel of \"Tunnelled\"",
          status: "ok",
          detail: `through 127.0.0.1:${sshd.port}; 127.0.0.1:${sshd.port}: key known (${fingerprint})`
        })
        knownHosts([])
        const unknown = await tunnelLine()
        expect(unknown.status).toBe("warn")
        expect(unknown.detail).toContain(`127.0.0.1:${sshd.port}: key not known yet (${fingerprint})`)
        expect(unknown.fix).toMatch(/^run dbdesk connection test \S+ in a terminal/)
      },
      60_000
    )
  }
)

describe("the terminal's host-key question", () => {
  const ask = (typed: string) => {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ""
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()))
    input.end(typed)
    const answer = Effect.runPromise(
      Effect.flatMap(HostKeyQuestions, (questions) =>
        questions.ask({
          connectionId: "c",
          connectionName: "Prod",
          host: "bastion:22",
          fingerprint: "SHA256:abc",
          message: "Trust the SSH host bastion:22 for 'Prod'? SHA256:abc"
        })).pipe(Effect.provide(terminalHostKeyQuestions(input, output)))
    )
    return answer.then((decision) => ({ decision, shown }))
  }

  it("shows the fingerprint; only y/yes accepts, anything else (or no answer) refuses", async () => {
    expect(await ask("yes\n")).toStrictEqual({
      decision: "approved",
      shown: "\nTrust the SSH host bastion:22 for 'Prod'? SHA256:abc\nAccept this key? [y/N] "
    })
    expect((await ask("n\n")).decision).toBe("denied")
    expect((await ask("")).decision).toBe("denied")
  })
})
