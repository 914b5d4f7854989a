import { Schema } from "effect"
import { costGuardFields } from "./CostGuard.ts"
import { maskingRulesField, SecretCatalogs } from "./MaskingRules.ts"
import { SearchClusterFields, SearchSslMode } from "./SearchConnection.ts"
import { SshTunnel } from "./SshTunnel.ts"

/** D-12: the three access settings of every connection, defaults first. */
export const ExternalAccess = Schema.Literal("readOnly", "readWrite", "blocked")
export type ExternalAccess = typeof ExternalAccess.Type
export const AiPolicy = Schema.Literal("askEachTime", "alwaysAllow", "never")
export type AiPolicy = typeof AiPolicy.Type
export const ConfirmQueries = Schema.Literal("writes", "all")
export type ConfirmQueries = typeof ConfirmQueries.Type

/** A connection's colour in the UI, `#rrggbb`. */
export const ConnectionColor = Schema.String.pipe(
  Schema.pattern(/^#[0-9a-f]{6}$/i, { message: () => "A connection colour is #rrggbb." })
)

/** D-103: a connection list group, free text of at most 60 characters. */
export const ConnectionGroup = Schema.String.pipe(
  Schema.trimmed({ message: () => "A connection group has no spaces around it." }),
  Schema.maxLength(60, { message: () => "A connection group is at most 60 characters." })
)

export const ConnectionId = Schema.String.pipe(Schema.nonEmptyString(), Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type

const common = {
  id: ConnectionId,
  name: Schema.String.pipe(Schema.nonEmptyString({ message: () => "A connection needs a name." })),
  externalAccess: Schema.optionalWith(ExternalAccess, { default: () => "readOnly" as const }),
  aiPolicy: Schema.optionalWith(AiPolicy, { default: () => "askEachTime" as const }),
  confirmQueries: Schema.optionalWith(ConfirmQueries, { default: () => "writes" as const }),
  /** D-64: AI settings that guard what MCP callers read (the UI shows everything). */
  secretCatalogs: Schema.optionalWith(SecretCatalogs, { default: () => "closed" as const }),
  /** How the UI marks the connection and every tab of it: a colour, and whether it is a production database. */
  color: Schema.optionalWith(ConnectionColor, { exact: true }),
  production: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** D-103: the group the connection list shows it under (free text; absent: ungrouped). */
  group: Schema.optionalWith(ConnectionGroup, { exact: true })
}
const sql = { ...common, maskingRules: maskingRulesField("sql") }

export const SqliteConnection = Schema.Struct({
  ...sql,
  type: Schema.Literal("sqlite"),
  path: Schema.String.pipe(
    Schema.nonEmptyString({ message: () => "A SQLite connection needs the path of its database file." })
  )
})
export type SqliteConnection = typeof SqliteConnection.Type

export const PostgresSslMode = Schema.Literal("disable", "prefer", "require", "verify-ca", "verify-full")

/**
 * TLS files of a PostgreSQL or MySQL/MariaDB connection, next to its SSL mode: the CA that signed the server's
 * certificate (used by verify-ca and verify-full) and a client certificate with its key; the key's passphrase is
 * a secret like the password (stored, never shown back).
 */
export const TlsFileFields = {
  sslCa: Schema.optionalWith(
    Schema.String.pipe(Schema.nonEmptyString()).annotations({
      description: "CA certificate file (PEM) the server's certificate must be signed by (verify-ca, verify-full)"
    }),
    { exact: true }
  ),
  sslCert: Schema.optionalWith(
    Schema.String.pipe(Schema.nonEmptyString()).annotations({ description: "Client certificate file (PEM)" }),
    { exact: true }
  ),
  sslKey: Schema.optionalWith(
    Schema.String.pipe(Schema.nonEmptyString()).annotations({ description: "Client private key file (PEM)" }),
    { exact: true }
  ),
  sslKeyPassphrase: Schema.optionalWith(
    Schema.Redacted(Schema.String).annotations({
      description: "Passphrase of the client key (a secret: stored, never shown back)"
    }),
    { exact: true }
  )
}
/** The TLS file fields that name files (resolved to absolute paths when given on the command line). */
export const TLS_FILE_FIELDS = ["sslCa", "sslCert", "sslKey"] as const

export const PostgresConnection = Schema.Struct({
  ...sql,
  type: Schema.Literal("postgresql"),
  host: Schema.String.pipe(Schema.nonEmptyString()),
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 65535)), { default: () => 5432 }),
  database: Schema.String.pipe(Schema.nonEmptyString()),
  user: Schema.String.pipe(Schema.nonEmptyString()),
  password: Schema.optionalWith(Schema.Redacted(Schema.String), { exact: true }),
  sslMode: Schema.optionalWith(PostgresSslMode, { default: () => "prefer" as const }),
  ...TlsFileFields,
  /** Reached through an SSH tunnel: host and port are then as the last SSH host sees them. */
  ssh: Schema.optionalWith(SshTunnel, { exact: true }),
  /** D-95: the planner's estimate of a read against budgets (off when absent). */
  ...costGuardFields
})
export type PostgresConnection = typeof PostgresConnection.Type

export const MysqlSslMode = Schema.Literal("disabled", "preferred", "required", "verify-ca", "verify-full").annotations(
  {
    description:
      "TLS: disabled; preferred (TLS when the server offers it, unverified); required (TLS, unverified); verify-ca (TLS, certificate checked); verify-full (TLS, certificate and host name checked)"
  }
)

/** D-75: MySQL 8.0+ and MariaDB 10.6+; a MySQL schema is a database, so the database is optional. */
export const MysqlConnection = Schema.Struct({
  ...sql,
  type: Schema.Literal("mysql"),
  host: Schema.String.pipe(Schema.nonEmptyString()).annotations({
    description: "Host name or address of the MySQL/MariaDB server"
  }),
  port: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, 65535)).annotations({ description: "TCP port (default 3306)" }),
    { default: () => 3306 }
  ),
  user: Schema.String.pipe(Schema.nonEmptyString()).annotations({ description: "Account name" }),
  password: Schema.optionalWith(
    Schema.Redacted(Schema.String).annotations({
      description: "Account password (a secret: stored, never shown back)"
    }),
    { exact: true }
  ),
  database: Schema.optionalWith(
    Schema.String.pipe(Schema.nonEmptyString()).annotations({
      description: "Default database (optional; tools take a database argument)"
    }),
    { exact: true }
  ),
  sslMode: Schema.optionalWith(MysqlSslMode, { default: () => "preferred" as const }),
  ...TlsFileFields,
  /** Reached through an SSH tunnel: host and port are then as the last SSH host sees them. */
  ssh: Schema.optionalWith(SshTunnel, { exact: true }),
  /** D-95: the planner's estimate of a read against budgets (off when absent). */
  ...costGuardFields
})
export type MysqlConnection = typeof MysqlConnection.Type

/** Doc 2 §2.1: one cluster, no Database field; the API key is the whole credential. */
export const SearchConnection = Schema.Struct({
  ...common,
  maskingRules: maskingRulesField("search"),
  type: Schema.Literal("search"),
  host: Schema.String.pipe(Schema.nonEmptyString()),
  port: Schema.Int.pipe(Schema.between(1, 65535)),
  apiKey: Schema.Redacted(Schema.String),
  sslMode: Schema.optionalWith(SearchSslMode, { default: () => "Disabled" as const }),
  skipTlsVerification: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** D-59: more nodes, a nearest node and the official client's retry and health-check settings (all optional). */
  ...SearchClusterFields
})
export type SearchConnection = typeof SearchConnection.Type

export const Connection = Schema.Union(SqliteConnection, PostgresConnection, MysqlConnection, SearchConnection)
export type Connection = typeof Connection.Type
export type ConnectionType = Connection["type"]

/** `connections.json` (0600, holds secrets). */
export const ConnectionsFile = Schema.Struct({
  version: Schema.Literal(1),
  connections: Schema.Array(Connection)
})
export type ConnectionsFile = typeof ConnectionsFile.Type

/** What `list_connections` shows of a connection (D-21): never a secret. */
export const ConnectionSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.Literal("sqlite", "postgresql", "mysql", "search"),
  host: Schema.optionalWith(Schema.String, { exact: true }),
  port: Schema.optionalWith(Schema.Int, { exact: true }),
  database: Schema.optionalWith(Schema.String, { exact: true }),
  is_connected: Schema.Boolean,
  external_access: ExternalAccess,
  ai_policy: AiPolicy,
  confirm_queries: ConfirmQueries
})
export type ConnectionSummary = typeof ConnectionSummary.Type
