/** Keyword lists of the statement classifier (D-22; reference-desktop-client-mcp §3.1). */

/** Leading keywords of statements that only read. WITH, EXPLAIN and PRAGMA are judged separately. */
export const READ_LEADING: ReadonlySet<string> = new Set(["SELECT", "VALUES", "TABLE", "SHOW", "DESCRIBE", "DESC"])

export const DESTRUCTIVE_LEADING: ReadonlySet<string> = new Set(["DROP", "TRUNCATE"])

/** Leading keywords that reach files or run code: refused for every external caller. */
export const FILES_OR_CODE_LEADING: ReadonlySet<string> = new Set([
  "COPY",
  "ATTACH",
  "DETACH",
  "LOAD",
  "DO",
  "INSTALL",
  "IMPORT",
  "EXPORT",
  "BACKUP",
  "RESTORE",
  "SOURCE",
  "UNLOAD"
])

/** Adjacent keyword pairs that reach files or run code wherever they appear. */
export const FILES_OR_CODE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["INTO", "OUTFILE"],
  ["INTO", "DUMPFILE"],
  ["TO", "PROGRAM"],
  ["FROM", "PROGRAM"]
]

/** Functions that read or write server files, run code or control other sessions (§3.1), in any dialect. */
export const FILES_OR_CODE_FUNCTIONS: ReadonlySet<string> = new Set([
  "pg_read_file",
  "pg_read_binary_file",
  "pg_ls_dir",
  "pg_stat_file",
  "lo_import",
  "lo_export",
  "pg_file_write",
  "dblink",
  "dblink_exec",
  "pg_terminate_backend",
  "pg_cancel_backend",
  "pg_reload_conf",
  "pg_rotate_logfile",
  "pg_promote",
  "set_config",
  "load_extension",
  "readfile",
  "writefile",
  "load_file",
  "pg_file_rename",
  "pg_file_unlink",
  "pg_logdir_ls",
  "pg_ls_logdir",
  "pg_ls_waldir",
  "pg_ls_tmpdir",
  "pg_ls_archive_statusdir",
  "dblink_connect",
  "dblink_connect_u",
  "dblink_send_query",
  "dblink_open",
  "dblink_fetch"
])

/**
 * Words that, anywhere inside a reading statement (SELECT, VALUES, TABLE, WITH bodies), make it change
 * data or the schema. `INTO` covers `SELECT … INTO` (PostgreSQL creates a table) and `REPLACE INTO`.
 */
export const WRITE_WORDS_IN_READS: ReadonlySet<string> = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "MERGE",
  "UPSERT",
  "INTO",
  "CREATE",
  "ALTER",
  "GRANT",
  "REVOKE",
  "VACUUM",
  "REINDEX",
  "CALL",
  "EXECUTE"
])

/** After `FOR` in a SELECT these lock rows (`FOR UPDATE`, `FOR SHARE`, `FOR NO KEY UPDATE`, `FOR KEY SHARE`). */
export const ROW_LOCK_WORDS: ReadonlySet<string> = new Set(["UPDATE", "SHARE", "NO", "KEY"])

/** Functions with side effects that a SELECT may call; they make the statement a write. */
export const WRITE_FUNCTIONS: ReadonlySet<string> = new Set([
  "nextval",
  "setval",
  "lo_create",
  "lo_creat",
  "lo_unlink",
  "lo_put",
  "lo_from_bytea",
  "lo_truncate",
  "pg_advisory_lock",
  "pg_advisory_xact_lock",
  "pg_advisory_lock_shared",
  "pg_try_advisory_lock",
  "pg_notify",
  "pg_switch_wal",
  "pg_create_restore_point",
  "pg_create_physical_replication_slot",
  "pg_create_logical_replication_slot",
  "pg_drop_replication_slot",
  "pg_replication_origin_create",
  "query_to_xml",
  "query_to_xml_and_xmlschema",
  "query_to_xmlschema",
  "cursor_to_xml",
  "pg_stat_reset",
  "pg_stat_reset_shared",
  "pg_backup_start",
  "pg_backup_stop",
  "pg_start_backup",
  "pg_stop_backup"
])

/** SQLite pragmas that only read when called bare (`PRAGMA name`). */
export const SQLITE_READ_PRAGMAS: ReadonlySet<string> = new Set([
  "application_id",
  "auto_vacuum",
  "automatic_index",
  "busy_timeout",
  "cache_size",
  "cache_spill",
  "cell_size_check",
  "collation_list",
  "compile_options",
  "data_version",
  "database_list",
  "defer_foreign_keys",
  "encoding",
  "foreign_key_check",
  "foreign_keys",
  "freelist_count",
  "function_list",
  "hard_heap_limit",
  "ignore_check_constraints",
  "integrity_check",
  "journal_mode",
  "journal_size_limit",
  "legacy_alter_table",
  "locking_mode",
  "max_page_count",
  "mmap_size",
  "module_list",
  "page_count",
  "page_size",
  "pragma_list",
  "query_only",
  "quick_check",
  "read_uncommitted",
  "recursive_triggers",
  "reverse_unordered_selects",
  "schema_version",
  "secure_delete",
  "soft_heap_limit",
  "synchronous",
  "table_list",
  "temp_store",
  "threads",
  "trusted_schema",
  "user_version",
  "wal_autocheckpoint",
  "analysis_limit"
])

/** SQLite pragmas whose argument names a table or index (`PRAGMA table_info(orders)`), so it only reads. */
export const SQLITE_READ_PRAGMAS_WITH_ARGUMENT: ReadonlySet<string> = new Set([
  "table_info",
  "table_xinfo",
  "index_info",
  "index_xinfo",
  "index_list",
  "foreign_key_list",
  "foreign_key_check",
  "integrity_check",
  "quick_check",
  "table_list"
])

/** MySQL/MariaDB (D-75): leading keywords that reach files, run code or control the server or other sessions. */
export const MYSQL_FILES_OR_CODE_LEADING: ReadonlyMap<string, string> = new Map([
  ["KILL", "KILL ends another session's statement or connection"],
  ["SHUTDOWN", "SHUTDOWN stops the server"],
  ["RESTART", "RESTART restarts the server"],
  ["BINLOG", "BINLOG replays raw binary-log events"],
  ["UNINSTALL", "UNINSTALL removes server code"],
  ["CLONE", "CLONE replaces the server's data directory"]
])

/** MySQL/MariaDB leading keywords that are held for approval, with the plain reason shown. */
export const MYSQL_WRITE_LEADING: ReadonlyMap<string, string> = new Map([
  ["DO", "DO evaluates expressions for their side effects"],
  ["HANDLER", "HANDLER reads rows outside the transaction and keeps a cursor open"],
  ["LOCK", "LOCK TABLES holds locks other sessions wait for"],
  ["UNLOCK", "UNLOCK TABLES releases locks"],
  ["FLUSH", "FLUSH reloads or closes server state"],
  ["RENAME", "RENAME changes the schema"],
  ["REPLACE", "REPLACE deletes and inserts rows"],
  ["CALL", "CALL runs a stored procedure"],
  ["GRANT", "GRANT changes privileges"],
  ["REVOKE", "REVOKE changes privileges"],
  ["USE", "USE changes the session's database"]
])

/** After SET these reach the server's configuration (`SET GLOBAL`, `SET PERSIST`, `@@global.x`): refused. */
export const MYSQL_GLOBAL_SCOPES: ReadonlySet<string> = new Set([
  "GLOBAL",
  "PERSIST",
  "PERSIST_ONLY",
  "@GLOBAL",
  "@PERSIST",
  "@PERSIST_ONLY"
])

/** MySQL/MariaDB functions with side effects a SELECT may call: locks, sequences, replication waits. */
export const MYSQL_WRITE_FUNCTIONS: ReadonlySet<string> = new Set([
  "get_lock",
  "release_lock",
  "release_all_locks",
  "nextval",
  "setval",
  "master_pos_wait",
  "source_pos_wait",
  "master_gtid_wait",
  "wait_for_executed_gtid_set",
  "wait_until_sql_thread_after_gtids"
])

/** User-defined functions of lib_mysqludf_sys and the like that run programs on the server: refused. */
export const MYSQL_FILES_OR_CODE_FUNCTIONS: ReadonlySet<string> = new Set([
  "sys_exec",
  "sys_eval",
  "sys_get",
  "sys_set"
])

/** Words after EXPLAIN/DESCRIBE that are options, not the statement. */
export const MYSQL_EXPLAIN_OPTIONS: ReadonlySet<string> = new Set(["EXTENDED", "PARTITIONS", "ANALYZE"])
