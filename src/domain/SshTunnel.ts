import { Schema } from "effect"

/** How dbdesk signs in to the SSH host: the agent (SSH_AUTH_SOCK), a private key file, or a password. */
export const SshAuth = Schema.Literal("agent", "key", "password")
export type SshAuth = typeof SshAuth.Type

const text = Schema.String.pipe(Schema.nonEmptyString())

/**
 * An SSH tunnel in front of a PostgreSQL or MySQL connection: the database's host and port are dialled from the last
 * SSH host. `host` may be an alias of the user's SSH config, whose HostName, User, Port, IdentityFile and ProxyJump
 * are used where the fields here say nothing. Secrets (passphrase, password) are stored like the database password.
 */
export const SshTunnel = Schema.Struct({
  host: text.annotations({ description: "SSH host name or address, or an alias of the SSH config" }),
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 65535)), { exact: true }),
  user: Schema.optionalWith(text, { exact: true }),
  /** Absent: the config's IdentityFile when the alias has one, else the agent. */
  auth: Schema.optionalWith(SshAuth, { exact: true }),
  keyFile: Schema.optionalWith(text, { exact: true }),
  passphrase: Schema.optionalWith(Schema.Redacted(Schema.String), { exact: true }),
  password: Schema.optionalWith(Schema.Redacted(Schema.String), { exact: true }),
  /** Jump hosts, the first dialled first: `user@host:port` or a config alias each (absent: the config's ProxyJump). */
  jumps: Schema.optionalWith(Schema.Array(text), { exact: true })
})
export type SshTunnel = typeof SshTunnel.Type

/** Parses `user@host:port`, `host:port`, `[v6]:port`, `user@host` or `host`. */
export const parseSshAddress = (
  value: string
): { readonly host: string; readonly port?: number; readonly user?: string } => {
  const at = value.lastIndexOf("@")
  const user = at > 0 ? value.slice(0, at) : undefined
  const rest = at > 0 ? value.slice(at + 1) : value
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest)
  const plain = /^([^:]+)(?::(\d+))?$/.exec(rest)
  const match = bracketed ?? plain
  const host = match?.[1] ?? rest
  const port = match?.[2] === undefined ? undefined : Number(match[2])
  return { host, ...(port === undefined ? {} : { port }), ...(user === undefined ? {} : { user }) }
}

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** The tunnel as the UI sees it: whether its password or passphrase is set, never the value. */
export const UiSsh = Schema.Struct({
  host: Schema.String,
  port: optional(Schema.Int),
  user: optional(Schema.String),
  auth: optional(SshAuth),
  keyFile: optional(Schema.String),
  jumps: optional(Schema.Array(Schema.String)),
  hasPassword: Schema.Boolean,
  hasPassphrase: Schema.Boolean
})
export type UiSsh = typeof UiSsh.Type

/** The form's SSH section; on edit an absent password/passphrase keeps the stored one; null removes the tunnel. */
export const UiSshInput = Schema.Struct({
  host: Schema.String,
  port: optional(Schema.Int),
  user: optional(Schema.String),
  auth: optional(SshAuth),
  keyFile: optional(Schema.String),
  password: optional(Schema.String),
  passphrase: optional(Schema.String),
  jumps: optional(Schema.Array(Schema.String))
})
export type UiSshInput = typeof UiSshInput.Type
