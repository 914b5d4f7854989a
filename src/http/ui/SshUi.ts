import { Redacted } from "effect"
import { type SshTunnel, SshTunnel as SshTunnelSchema, type UiSsh, type UiSshInput } from "../../domain/SshTunnel.ts"

/** What the UI may see of a tunnel: never its password or passphrase. */
export const toUiSsh = (ssh: SshTunnel | undefined): { readonly ssh?: UiSsh } => {
  if (ssh === undefined) return {}
  const { password, passphrase, ...rest } = ssh
  return {
    ssh: {
      ...rest,
      ...(rest.jumps === undefined ? {} : { jumps: [...rest.jumps] }),
      hasPassword: password !== undefined,
      hasPassphrase: passphrase !== undefined
    }
  }
}

/** The tunnel as connections.json stores it (what Connections.add/update decode). */
export type SshTunnelStored = typeof SshTunnelSchema.Encoded

const reveal = (
  secret: Redacted.Redacted<string> | undefined
) => (secret === undefined ? undefined : Redacted.value(secret))

const trimmed = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())

/**
 * The form's SSH section as stored: absent, the connection keeps its tunnel (null removes it); an empty host means
 * none; an empty password or passphrase keeps the stored one.
 */
export const sshFromUi = (
  input: UiSshInput | null | undefined,
  stored: SshTunnel | undefined
): { readonly ssh?: SshTunnelStored | undefined } => {
  if (input === undefined) return {}
  const host = trimmed(input?.host)
  if (input === null || host === undefined) return { ssh: undefined }
  const user = trimmed(input.user)
  const keyFile = trimmed(input.keyFile)
  const jumps = (input.jumps ?? []).map((jump) => jump.trim()).filter((jump) => jump !== "")
  const password = trimmed(input.password) === undefined ? reveal(stored?.password) : input.password!
  const passphrase = trimmed(input.passphrase) === undefined ? reveal(stored?.passphrase) : input.passphrase!
  return {
    ssh: {
      host,
      ...(input.port === undefined ? {} : { port: input.port }),
      ...(user === undefined ? {} : { user }),
      ...(input.auth === undefined ? {} : { auth: input.auth }),
      ...(keyFile === undefined ? {} : { keyFile }),
      ...(password === undefined || input.auth !== "password" ? {} : { password }),
      ...(passphrase === undefined || input.auth === "password" || input.auth === "agent" ? {} : { passphrase }),
      ...(jumps.length === 0 ? {} : { jumps })
    }
  }
}
