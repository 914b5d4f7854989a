// What `dbdesk doctor` says of a connection's SSH tunnel: its path, and each SSH host's key as the known_hosts files
// see it (known, unknown, changed), found by opening the tunnel without asking anyone anything.
import type { TunnelledConnection } from "./ConnectionTunnel.ts"
import { tunnelEnvironment, tunnelOf } from "./ConnectionTunnel.ts"
import { fingerprintOf, type HostKeyState } from "./KnownHosts.ts"
import { hopName } from "./SshHops.ts"
import { TunnelFailure } from "./Tunnel.ts"
import type { SupportFiles } from "../SupportDirectory.ts"
import { Option } from "effect"

export interface TunnelReport {
  readonly path: string
  /** One entry per SSH host reached, in order: its name and its key's state. */
  readonly hosts: ReadonlyArray<
    { readonly host: string; readonly state: HostKeyState["kind"]; readonly fingerprint: string }
  >
  /** Why the tunnel did not open, naming the hop; undefined when it opened. */
  readonly failure: string | undefined
  readonly stage: TunnelFailure["stage"] | undefined
}

const stateWords = (
  kind: HostKeyState["kind"]
) => (kind === "known"
  ? "key known"
  : kind === "unknown"
  ? "key not known yet"
  : kind === "changed"
  ? "KEY CHANGED"
  : "key revoked")

export const describeReport = (report: TunnelReport): string =>
  `through ${report.path}; ${
    report.hosts.map((host) => `${host.host}: ${stateWords(host.state)} (${host.fingerprint})`).join(", ") ||
    "no SSH host reached"
  }`

export const reportTunnel = async (
  connection: TunnelledConnection,
  paths: SupportFiles | undefined
): Promise<TunnelReport | undefined> => {
  const environment = {
    ...tunnelEnvironment({ paths: Option.fromNullable(paths), questions: Option.none(), approvals: Option.none() }),
    ask: undefined
  }
  const tunnel = tunnelOf(connection, environment)
  if (tunnel === undefined) return undefined
  const hosts: Array<{ host: string; state: HostKeyState["kind"]; fingerprint: string }> = []
  tunnel.onHostKey((hop, key, state) =>
    hosts.push({ host: hopName(hop), state: state.kind, fingerprint: fingerprintOf(key) })
  )
  try {
    await tunnel.open()
    return { path: tunnel.path, hosts, failure: undefined, stage: undefined }
  } catch (error) {
    return {
      path: tunnel.path,
      hosts,
      failure: (error as Error).message,
      stage: error instanceof TunnelFailure ? error.stage : undefined
    }
  } finally {
    tunnel.close()
  }
}
