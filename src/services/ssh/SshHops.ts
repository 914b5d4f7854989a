// The SSH hosts a tunnel goes through, first dialled first: the jump hosts, then the bastion in front of the
// database. An alias of the user's SSH config (read with ssh-config, Match exec never run) gives HostName, User,
// Port, IdentityFile and ProxyJump where the connection's own fields say nothing.
import { readFileSync } from "node:fs"
import { homedir, userInfo } from "node:os"
import { join } from "node:path"
import SSHConfig from "ssh-config"
import { parseSshAddress, type SshAuth, type SshTunnel } from "../../domain/SshTunnel.ts"
import type { Hop } from "./Hop.ts"

export type { Hop } from "./Hop.ts"

/** Where the SSH config, the user's known_hosts and the agent are; tests point them at throwaway files. */
export interface SshFiles {
  readonly config: string
  readonly knownHosts: string
  readonly agent: string | undefined
}

/** DBDESK_SSH_CONFIG and DBDESK_SSH_KNOWN_HOSTS override ~/.ssh/config and ~/.ssh/known_hosts. */
export const sshFiles = (env: NodeJS.ProcessEnv = process.env): SshFiles => ({
  config: env["DBDESK_SSH_CONFIG"] ?? join(homedir(), ".ssh", "config"),
  knownHosts: env["DBDESK_SSH_KNOWN_HOSTS"] ?? join(homedir(), ".ssh", "known_hosts"),
  agent: env["SSH_AUTH_SOCK"]
})

type Computed = Record<string, string | Array<string>>

const readConfig = (file: string): SSHConfig | undefined => {
  try {
    return SSHConfig.parse(readFileSync(file, "utf8"))
  } catch {
    return undefined
  }
}

const expandHome = (path: string): string => (path.startsWith("~/") ? join(homedir(), path.slice(2)) : path)

const first = (
  value: string | Array<string> | undefined
): string | undefined => (Array.isArray(value) ? value[0] : value)

const compute = (config: SSHConfig | undefined, host: string): Computed =>
  config === undefined ? {} : (config.compute(host, { ignoreCase: true, matchExec: false }))

interface Secrets {
  readonly auth: SshAuth | undefined
  readonly keyFile: string | undefined
  readonly passphrase: string | undefined
  readonly password: string | undefined
}

const hopOf = (
  config: SSHConfig | undefined,
  explicit: { host: string; port?: number; user?: string },
  secrets: Secrets
): Hop => {
  const found = compute(config, explicit.host)
  const identity = first(found["identityfile"])
  const keyFile = secrets.keyFile ?? (identity === undefined ? undefined : expandHome(identity))
  const auth: SshAuth = secrets.auth ??
    (keyFile !== undefined ? "key" : secrets.password !== undefined ? "password" : "agent")
  const port = explicit.port ?? Number(first(found["port"]) ?? 22)
  return {
    label: explicit.host,
    host: first(found["hostname"]) ?? explicit.host,
    port: Number.isInteger(port) ? port : 22,
    user: explicit.user ?? first(found["user"]) ?? userInfo().username,
    auth,
    ...(keyFile === undefined ? {} : { keyFile }),
    ...(secrets.passphrase === undefined ? {} : { passphrase: secrets.passphrase }),
    ...(secrets.password === undefined ? {} : { password: secrets.password })
  }
}

/** The hops of a tunnel; a jump host signs in like the bastion unless its alias names its own IdentityFile. */
export const resolveHops = (
  tunnel: SshTunnel,
  secrets: { readonly passphrase?: string | undefined; readonly password?: string | undefined },
  files: SshFiles
): ReadonlyArray<Hop> => {
  const config = readConfig(files.config)
  const own: Secrets = {
    auth: tunnel.auth,
    keyFile: tunnel.keyFile,
    passphrase: secrets.passphrase,
    password: secrets.password
  }
  const bastion = hopOf(config, {
    host: tunnel.host,
    ...(tunnel.port === undefined ? {} : { port: tunnel.port }),
    ...(tunnel.user === undefined ? {} : { user: tunnel.user })
  }, own)
  const configured = first(compute(config, tunnel.host)["proxyjump"])
  const jumps = tunnel.jumps ??
    (configured === undefined || configured.toLowerCase() === "none" ? [] : configured.split(","))
  const hops = jumps.map((written) => {
    const address = parseSshAddress(written.trim())
    const alias = compute(config, address.host)["identityfile"] !== undefined
    const likeBastion: Secrets = {
      auth: bastion.auth,
      keyFile: bastion.keyFile,
      passphrase: bastion.passphrase,
      password: bastion.password
    }
    return hopOf(
      config,
      address,
      alias ? { ...own, auth: undefined, keyFile: undefined, passphrase: undefined } : likeBastion
    )
  })
  return [...hops, bastion]
}

export { hopName } from "./Hop.ts"
