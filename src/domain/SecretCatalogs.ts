import type { SqlDialect } from "./SqlLexer.ts"

/**
 * D-64: the catalogs that hold credentials, closed to AI clients while a connection's AI setting
 * `secretCatalogs` is "closed" (the default). Each is closed whole, under every name it is reachable by: the
 * catalog, the system views over it, and its credential columns (a statement naming one is refused before it runs).
 */
export interface SecretCatalog {
  readonly schema: string
  readonly name: string
  /** What it holds, in the refusal's words. */
  readonly holds: string
  /** An extension's view, found in whichever schema it was installed into (`schema` is the usual one). */
  readonly anySchema?: true
}

const pg = (schema: string, name: string, holds: string): SecretCatalog => ({ schema, name, holds })
/** Other sessions' statement texts: an `ALTER USER … PASSWORD '…'` or `CREATE USER … IDENTIFIED BY '…'` is kept there as written. */
const STATEMENTS = "other sessions' statement texts, which may carry passwords"
const ROLES = "role password hashes"
const MAPPINGS = "user-mapping options, which hold remote passwords"
const SERVERS = "foreign-server options"

export const SECRET_CATALOGS: Readonly<Record<SqlDialect, ReadonlyArray<SecretCatalog>>> = {
  postgresql: [
    pg("pg_catalog", "pg_authid", ROLES),
    pg("pg_catalog", "pg_shadow", ROLES),
    pg("pg_catalog", "pg_user_mapping", MAPPINGS),
    pg("pg_catalog", "pg_user_mappings", MAPPINGS),
    pg("information_schema", "user_mapping_options", MAPPINGS),
    pg("information_schema", "_pg_user_mappings", MAPPINGS),
    pg("pg_catalog", "pg_foreign_server", SERVERS),
    pg("information_schema", "foreign_server_options", SERVERS),
    pg("information_schema", "_pg_foreign_servers", SERVERS),
    pg("pg_catalog", "pg_subscription", "subscription connection strings"),
    pg("pg_catalog", "pg_stat_activity", STATEMENTS),
    pg("pg_catalog", "pg_stat_get_activity", STATEMENTS),
    pg("pg_catalog", "pg_stat_get_backend_activity", STATEMENTS),
    { ...pg("public", "pg_stat_statements", STATEMENTS), anySchema: true },
    { ...pg("public", "pg_stat_statements_info", STATEMENTS), anySchema: true }
  ],
  mysql: [
    pg("mysql", "user", "account password hashes"),
    pg("mysql", "global_priv", "account password hashes"),
    pg("mysql", "password_history", "former account password hashes"),
    pg("mysql", "servers", "FEDERATED server passwords"),
    pg("mysql", "slave_master_info", "replication passwords"),
    pg("mysql", "general_log", STATEMENTS),
    pg("mysql", "slow_log", STATEMENTS),
    pg("information_schema", "processlist", STATEMENTS),
    pg("performance_schema", "processlist", STATEMENTS),
    pg("performance_schema", "threads", STATEMENTS),
    pg("performance_schema", "events_statements_current", STATEMENTS),
    pg("performance_schema", "events_statements_history", STATEMENTS),
    pg("performance_schema", "events_statements_history_long", STATEMENTS),
    pg("performance_schema", "events_statements_summary_by_digest", STATEMENTS),
    pg("performance_schema", "prepared_statements_instances", STATEMENTS),
    pg("sys", "processlist", STATEMENTS),
    pg("sys", "x$processlist", STATEMENTS),
    pg("sys", "session", STATEMENTS),
    pg("sys", "x$session", STATEMENTS)
  ],
  sqlite: []
}

/**
 * Credential columns and settings, with the catalog each belongs to: naming one anywhere in a statement is refused
 * (`primary_conninfo` is the setting with the replication password).
 */
export const SECRET_WORDS: Readonly<Record<SqlDialect, ReadonlyArray<readonly [string, SecretCatalog]>>> = {
  postgresql: [
    ["rolpassword", pg("pg_catalog", "pg_authid", ROLES)],
    ["umoptions", pg("pg_catalog", "pg_user_mapping", MAPPINGS)],
    ["srvoptions", pg("pg_catalog", "pg_foreign_server", SERVERS)],
    ["subconninfo", pg("pg_catalog", "pg_subscription", "subscription connection strings")],
    ["primary_conninfo", pg("pg_catalog", "pg_settings", "the replication connection string, with its password")]
  ],
  mysql: [
    ["authentication_string", pg("mysql", "user", "account password hashes")],
    ["processlist_info", pg("performance_schema", "threads", STATEMENTS)],
    ["query_sample_text", pg("performance_schema", "events_statements_summary_by_digest", STATEMENTS)]
  ],
  sqlite: []
}

/**
 * Functions that run SQL text (or read a relation given by OID), so what they read cannot be checked before they
 * run: refused while a guard applies (a secret catalog closed, or masking rules).
 */
export const TEXT_RUNNING_FUNCTIONS: Readonly<Record<SqlDialect, ReadonlySet<string>>> = {
  postgresql: new Set([
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
    "table_to_xml",
    "table_to_xmlschema",
    "table_to_xml_and_xmlschema",
    "cursor_to_xml",
    "cursor_to_xmlschema",
    "schema_to_xml",
    "schema_to_xmlschema",
    "schema_to_xml_and_xmlschema",
    "database_to_xml",
    "database_to_xmlschema",
    "database_to_xml_and_xmlschema",
    "ts_stat",
    "ts_rewrite"
  ]),
  mysql: new Set(),
  sqlite: new Set()
}

const SETS_A_CREDENTIAL = /\b(PASSWORD|IDENTIFIED|CONNECTION|MAPPING|SERVER|SUBSCRIPTION|CONNINFO)\b/i
const LITERAL = /\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$|[Ee]?'(?:[^'\\]|''|\\.)*'|"(?:[^"\\]|""|\\.)*"/g

/**
 * The query history as the history resource shows it while secret catalogs are closed: a statement that may set a
 * credential (ALTER ROLE … PASSWORD, CREATE USER … IDENTIFIED BY, a user mapping's or server's OPTIONS, a
 * subscription's CONNECTION) keeps its shape but not its literals.
 */
export const withoutCredentialLiterals = (
  sql: string
): string => (SETS_A_CREDENTIAL.test(sql) ? sql.replace(LITERAL, "'…'") : sql)
