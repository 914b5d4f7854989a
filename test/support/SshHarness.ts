// Debian's OpenSSH server for the tunnel suites: one throwaway sshd per call on a free loopback port, with its own
// host key, authorized_keys and sshd_config (no system service, no PAM), logging at DEBUG1 so each forwarded
// direct-tcpip channel shows in its log. Killed (sessions included), stalled (SIGSTOP) and restarted on demand.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./PostgresHarness.ts"

export const SSHD = process.env["DBDESK_SSHD"] ?? "/usr/sbin/sshd"
export const sshdAvailable = existsSync(SSHD) && existsSync("/usr/bin/ssh-keygen")
export const SSHD_MISSING =
  `OpenSSH server not found at ${SSHD}: install it with \`apt-get install -y openssh-server\`; CI installs it`

export type KeyType = "ed25519" | "ecdsa" | "rsa"

export interface KeyPair {
  readonly privateFile: string
  /** The public key line (`ssh-ed25519 AAAA… comment`). */
  readonly publicLine: string
}

/** A user key (optionally with a passphrase) made by ssh-keygen. */
export const makeKey = (directory: string, type: KeyType, passphrase = ""): KeyPair => {
  const file = join(directory, `id_${type}_${randomBytes(3).toString("hex")}`)
  execFileSync("ssh-keygen", [
    "-q",
    "-t",
    type,
    ...(type === "rsa" ? ["-b", "2048"] : []),
    "-N",
    passphrase,
    "-C",
    "dbdesk-test",
    "-f",
    file
  ])
  return { privateFile: file, publicLine: readFileSync(`${file}.pub`, "utf8").trim() }
}

export interface SshServer {
  readonly host: "127.0.0.1"
  readonly port: number
  /** The host key's public line and its blob's base64 (what known_hosts lists). */
  readonly hostKeyLine: string
  readonly hostKeyBase64: string
  /** `[127.0.0.1]:port ssh-ed25519 AAAA…`: a plain known_hosts line. */
  readonly knownHostsLine: () => string
  /** The same entry with a hashed host name (`|1|salt|hash`), as HashKnownHosts writes it. */
  readonly hashedKnownHostsLine: () => string
  /** The daemon's log so far. */
  readonly log: () => string
  /** Forwarded channels the daemon opened to `port` (from its log). */
  readonly forwardsTo: (port: number) => number
  /** Kills the daemon and every session process it started (SIGKILL). */
  readonly kill: () => void
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the daemon and its sessions. */
  readonly stall: (frozen: boolean) => void
  /** Starts the daemon again on the same port; a new host key when `newHostKey`. */
  readonly restart: (options?: { readonly newHostKey?: boolean }) => Promise<void>
  readonly stop: () => Promise<void>
}

export interface SshServerOptions {
  /** Public key lines allowed to sign in as root. */
  readonly authorizedKeys: ReadonlyArray<string>
  readonly hostKeyType?: KeyType
}

const sessionPids = (daemon: number): Array<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(daemon)], { encoding: "utf8" }).split("\n").map((line) =>
      Number(line.trim())
    ).filter((pid) => pid > 0)
  } catch {
    return []
  }
}

/** The session processes of a daemon and theirs (sshd forks a monitor and an unprivileged child per session). */
const descendants = (pid: number): Array<number> => sessionPids(pid).flatMap((child) => [child, ...descendants(child)])

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}

export const startSshd = async (options: SshServerOptions): Promise<SshServer> => {
  if (!sshdAvailable) throw new Error(SSHD_MISSING)
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
  const root = mkdtempSync(join(tmpdir(), "dbdesk-sshd-"))
  const port = await freePort()
  const hostKeyFile = join(root, "host_key")
  const logFile = join(root, "sshd.log")
  const makeHostKey = () => {
    rmSync(hostKeyFile, { force: true })
    rmSync(`${hostKeyFile}.pub`, { force: true })
    const type = options.hostKeyType ?? "ed25519"
    execFileSync("ssh-keygen", [
      "-q",
      "-t",
      type,
      ...(type === "rsa" ? ["-b", "2048"] : []),
      "-N",
      "",
      "-f",
      hostKeyFile
    ])
  }
  makeHostKey()
  writeFileSync(join(root, "authorized_keys"), `${options.authorizedKeys.join("\n")}\n`, { mode: 0o600 })
  writeFileSync(
    join(root, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKeyFile}`,
      `PidFile ${join(root, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(root, "authorized_keys")}`,
      "StrictModes no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "AllowTcpForwarding yes",
      "AllowAgentForwarding no",
      "X11Forwarding no",
      "PermitTTY no",
      "LogLevel DEBUG1",
      ""
    ].join("\n")
  )

  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(SSHD, ["-D", "-E", logFile, "-f", join(root, "sshd_config")], { stdio: "ignore" })
    child.on("error", () => undefined)
    for (let i = 0; i < 200; i++) {
      if (existsSync(logFile) && readFileSync(logFile, "utf8").includes(`Server listening on 127.0.0.1 port ${port}`)) {
        return
      }
      if (child.exitCode !== null) throw new Error(`sshd exited: ${readFileSync(logFile, "utf8")}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`sshd did not start: ${existsSync(logFile) ? readFileSync(logFile, "utf8") : ""}`)
  }
  await start()

  const hostKeyLine = () => readFileSync(`${hostKeyFile}.pub`, "utf8").trim()
  const blob = () => hostKeyLine().split(" ")[1]!
  const entryName = `[127.0.0.1]:${port}`
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "")
  const all = () => (child?.pid === undefined ? [] : [child.pid, ...descendants(child.pid)])
  const kill = () => {
    for (const pid of all().reverse()) signal(pid, "SIGKILL")
  }
  const exited = () => (child === undefined || child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((done) => child!.once("exit", () => done())))
  const server: SshServer = {
    host: "127.0.0.1",
    port,
    get hostKeyLine() {
      return hostKeyLine()
    },
    get hostKeyBase64() {
      return blob()
    },
    knownHostsLine: () => `${entryName} ${hostKeyLine().split(" ").slice(0, 2).join(" ")}`,
    hashedKnownHostsLine: () => {
      const salt = randomBytes(20)
      const hash = createHmac("sha1", salt).update(entryName).digest("base64")
      return `|1|${salt.toString("base64")}|${hash} ${hostKeyLine().split(" ").slice(0, 2).join(" ")}`
    },
    log,
    // OpenSSH logs each at DEBUG1: "server_request_direct_tcpip: originator … port …, target 127.0.0.1 port 5432".
    forwardsTo: (target) =>
      log().split("\n").filter((line) =>
        new RegExp(`direct_tcpip: originator .*, target \\S+ port ${target}\\s*$`).test(line)
      ).length,
    kill,
    stall: (frozen) => {
      for (const pid of all()) signal(pid, frozen ? "SIGSTOP" : "SIGCONT")
    },
    restart: async (restartOptions = {}) => {
      kill()
      await exited()
      if (restartOptions.newHostKey === true) makeHostKey()
      writeFileSync(logFile, "")
      await start()
    },
    stop: async () => {
      for (const pid of all()) signal(pid, "SIGCONT")
      kill()
      await exited()
      rmSync(root, { recursive: true, force: true })
    }
  }
  return server
}
