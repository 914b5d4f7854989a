import type { SshAuth } from "../../domain/SshTunnel.ts"

/** One SSH host of a tunnel's path, resolved (SshHops.ts); apart so code that only names hops loads no SSH library. */
export interface Hop {
  /** What the user wrote (an alias or an address), for messages. */
  readonly label: string
  readonly host: string
  readonly port: number
  readonly user: string
  readonly auth: SshAuth
  readonly keyFile?: string
  readonly passphrase?: string
  readonly password?: string
}

export const hopName = (
  hop: Hop
): string => (hop.label === hop.host ? `${hop.host}:${hop.port}` : `${hop.label} (${hop.host}:${hop.port})`)
