// Well-formed requests for every method and tool of the contract (D-89): the material the fuzzer mutates.
// A seeded generator, so a failing case can be replayed from its seed and index.
import { makeRandom as makeSeededRandom } from "../../src/domain/SeededRandom.ts"

/** The sample database's seeded generator (mulberry32), with what the fuzzer also draws. */
export const makeRandom = (seed: number) => {
  const random = makeSeededRandom(seed)
  const chance = (p: number): boolean => random.next() < p
  const text = (length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-"): string =>
    Array.from({ length }, () => alphabet[random.int(0, alphabet.length - 1)]).join("")
  return { ...random, chance, text }
}
export type Random = ReturnType<typeof makeRandom>

export interface FuzzTarget {
  readonly sampleId: string
  /** Connections of every type: a live search engine, and PostgreSQL, MySQL and search ones whose server is not there. */
  readonly otherIds: ReadonlyArray<string>
  /** Valid, revoked, expired and made-up bearer tokens, and none. */
  readonly tokens: Readonly<Record<string, string | undefined>>
  /** request states and cursors the server handed out, for replays (filled by the runner). */
  readonly states: Array<
    {
      readonly state: string
      readonly token: string
      readonly tokenKind: string
      readonly args: Record<string, unknown>
      readonly name: string
    }
  >
  readonly cursors: Array<{ readonly cursor: string; readonly method: string }>
  readonly sessions: Array<{ readonly id: string; readonly token: string | undefined }>
}

export interface Rpc {
  readonly method: string
  readonly params: Record<string, unknown>
  /** The era (the legacy ones carry no _meta version and may need a session). */
  readonly era: "modern" | "legacy"
  readonly notification?: boolean
}

const SQL_READS = [
  "SELECT * FROM customers LIMIT 5",
  "SELECT count(*) FROM orders",
  "SELECT id, name FROM products ORDER BY id DESC LIMIT 3",
  "SELECT * FROM no_such_table",
  "SELEC oops",
  "SELECT 1; SELECT 2",
  "WITH t AS (SELECT 1 AS x) SELECT * FROM t",
  "EXPLAIN SELECT * FROM orders",
  "PRAGMA table_info(orders)",
  "SELECT x'00ff', 1e308, -0, 9223372036854775807",
  "SELECT length(?)",
  "/* comment */ SELECT 'a''b'",
  "SELECT * FROM orders WHERE id = 'x'' OR 1=1 --'"
]
const SQL_WRITES = [
  "UPDATE products SET stock = 0",
  "DELETE FROM orders",
  "INSERT INTO products (name) VALUES ('fuzz')",
  "DROP TABLE customers",
  "TRUNCATE orders",
  "ATTACH DATABASE '/tmp/x.db' AS x",
  "VACUUM INTO '/tmp/copy.db'",
  "CREATE TABLE fuzz (a)",
  "ALTER TABLE products DROP COLUMN name",
  "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
  "REPLACE INTO products (id) VALUES (1)"
]
const SEARCH_CONSOLE = [
  "GET /collections",
  "GET /collections/books/documents/search?q=*&query_by=title",
  "POST /collections/books/documents\n{\"id\":\"fuzz\",\"title\":\"x\"}",
  "DELETE /collections/books",
  "GET /keys",
  "PATCH /collections/books/documents/1\n{\"title\":\"y\"}",
  "POST /multi_search\n{\"searches\":[]}"
]
const TABLES = [
  "customers",
  "orders",
  "order_items",
  "products",
  "books",
  "missing",
  "",
  "a.b.c",
  "\"quoted\"",
  "x".repeat(300)
]

export const TOOLS = [
  "list_connections",
  "get_connection_status",
  "list_databases",
  "list_schemas",
  "list_tables",
  "describe_table",
  "get_table_ddl",
  "search_schema",
  "browse_table",
  "count_rows",
  "execute_query",
  "explain_query",
  "insert_rows",
  "confirm_destructive_operation",
  "search_documents"
] as const

const toolArguments = (random: Random, name: string, connection: string): Record<string, unknown> => {
  const table = random.pick(TABLES)
  switch (name) {
    case "list_connections":
      return {}
    case "get_connection_status":
    case "list_databases":
      return { connection_id: connection }
    case "list_schemas":
    case "list_tables":
      return {
        connection_id: connection,
        ...(random.chance(0.3) ? { include_row_counts: true } : {}),
        ...(random.chance(0.2) ? { schema: "public", database: "main" } : {})
      }
    case "describe_table":
    case "get_table_ddl":
      return { connection_id: connection, table }
    case "search_schema":
      return {
        connection_id: connection,
        term: random.pick(["ord", "", "%", "name", "é"]),
        limit: random.pick([1, 10, 0, -1, 1000])
      }
    case "browse_table":
    case "count_rows":
      return {
        connection_id: connection,
        table,
        filters: random.chance(0.5)
          ? [{
            column: random.pick(["id", "name", "title", "nope"]),
            operator: random.pick(["=", "!=", "between", "in", "contains", "is_null", "ends_with", "like"]),
            value: random.pick(["1", "x`y", "", "a,b"]),
            second_value: "9"
          }]
          : [],
        logic: random.pick(["and", "or", "xor"]),
        ...(name === "browse_table"
          ? {
            sort: [{ column: random.pick(["id", "name"]), direction: random.pick(["asc", "desc", "up"]) }],
            limit: random.pick([1, 50, 1000, 0, 1_000_000]),
            offset: random.pick([0, 5, -1])
          }
          : {})
      }
    case "execute_query":
    case "explain_query":
      return {
        connection_id: connection,
        query: random.chance(0.7)
          ? random.pick(SQL_READS)
          : random.chance(0.5)
          ? random.pick(SQL_WRITES)
          : random.pick(SEARCH_CONSOLE),
        ...(random.chance(0.3) ? { max_rows: random.pick([1, 500, 10_000, 10_001, 0, 2.5]) } : {}),
        ...(random.chance(0.2) ? { timeout_seconds: random.pick([1, 5, 30, 0, 301]) } : {}),
        ...(name === "explain_query" && random.chance(0.3) ? { analyze: true } : {})
      }
    case "insert_rows":
      return {
        connection_id: connection,
        table,
        columns: ["name", "stock"],
        rows: random.chance(0.8) ? [["fuzz", 1]] : []
      }
    case "confirm_destructive_operation":
      return { connection_id: connection, query: random.chance(0.6) ? random.pick(SQL_WRITES) : random.pick(SQL_READS) }
    default:
      return {
        connection_id: connection,
        collection: random.pick(["books", "missing"]),
        q: random.pick(["*", "Book 1", ""]),
        query_by: "title",
        per_page: random.pick([1, 250, 251]),
        ...(random.chance(0.3) ? { filter_by: random.pick(["year:>1950", "nope:=1", "`"]) } : {})
      }
  }
}

const meta = (random: Random) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": random.chance(0.25) ? { elicitation: {} } : {},
  ...(random.chance(0.3)
    ? { "io.modelcontextprotocol/clientInfo": { name: `fuzz-${random.int(0, 20)}`, version: "1.0.0" } }
    : {}),
  ...(random.chance(0.05) ? { progressToken: random.chance(0.5) ? random.int(1, 1000) : "p" } : {}),
  ...(random.chance(0.05) ? { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } : {})
})

const PROMPTS = [
  "explain_schema",
  "explain_table",
  "question_to_sql",
  "data_quality_audit",
  "search_collection",
  "no_such_prompt"
]

/** One well-formed request of the modern era for a method of wire contract §4.3. */
const modern = (random: Random, target: FuzzTarget): Rpc => {
  const connection = random.chance(0.7) ? target.sampleId : random.pick([...target.otherIds, "no-such-connection"])
  const cursor = target.cursors.length > 0 && random.chance(0.3) ? random.pick(target.cursors) : undefined
  // A cursor handed out earlier, for this method or another (-32602), sometimes tampered with.
  const withCursor = (): Record<string, unknown> =>
    cursor === undefined
      ? {}
      : { cursor: random.chance(0.8) ? cursor.cursor : `${cursor.cursor.slice(0, -2)}${random.text(2)}` }
  const method = random.pick([
    "server/discover",
    "tools/list",
    "tools/call",
    "tools/call",
    "tools/call",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "subscriptions/listen"
  ])
  switch (method) {
    case "tools/call": {
      const name = random.chance(0.97) ? random.pick(TOOLS) : random.pick(["no_such_tool", "", "EXECUTE_QUERY"])
      const state = target.states.length > 0 && random.chance(0.1) ? random.pick(target.states) : undefined
      if (state !== undefined) {
        return { method, era: "modern", params: { ...stateReplay(random, state), _meta: meta(random) } }
      }
      return {
        method,
        era: "modern",
        params: { name, arguments: toolArguments(random, name, connection), _meta: meta(random) }
      }
    }
    case "resources/read":
      return {
        method,
        era: "modern",
        params: {
          uri: random.pick([
            `dbdesk://connections`,
            `dbdesk://connections/${connection}/schema`,
            `dbdesk://connections/${connection}/tables`,
            `dbdesk://connections/${connection}/tables/orders`,
            `dbdesk://connections/${connection}/tables/orders/ddl`,
            `dbdesk://connections/${connection}/history?limit=5`,
            "dbdesk://nope",
            "file:///etc/passwd",
            ""
          ]),
          _meta: meta(random)
        }
      }
    case "prompts/get":
      return {
        method,
        era: "modern",
        params: {
          name: random.pick(PROMPTS),
          arguments: { connection, table: "orders", question: "how many?", collection: "books", goal: "find" },
          _meta: meta(random)
        }
      }
    case "completion/complete":
      return {
        method,
        era: "modern",
        params: {
          ref: random.chance(0.5)
            ? { type: "ref/prompt", name: random.pick(PROMPTS) }
            : { type: "ref/resource", uri: "dbdesk://connections/{connection_id}/tables/{table}" },
          argument: {
            name: random.pick(["connection", "table", "connection_id", "x"]),
            value: random.pick(["", "o", "Sam"])
          },
          context: { arguments: { connection, connection_id: connection } },
          _meta: meta(random)
        }
      }
    case "subscriptions/listen":
      return {
        method,
        era: "modern",
        params: {
          filter: { resourcesListChanged: true, resourceSubscriptions: [`dbdesk://connections/${connection}/schema`] },
          _meta: meta(random)
        }
      }
    default:
      return { method, era: "modern", params: { ...withCursor(), _meta: meta(random) } }
  }
}

/** A repeated call after input_required (wire contract §3.1): declined, changed, tampered, replayed or under another token. */
const stateReplay = (random: Random, state: FuzzTarget["states"][number]): Record<string, unknown> => {
  const tampered = random.chance(0.3) ? `${state.state.slice(0, -3)}${random.text(3)}` : state.state
  const changed = random.chance(0.3) ? { ...state.args, query: `${String(state.args["query"] ?? "")} ` } : state.args
  // Accepting an untouched state is only ever sent by a principal whose accepted form does not replace the app's dialog.
  const accept = random.chance(0.5) &&
    (state.tokenKind !== "fullAccess" || tampered !== state.state || changed !== state.args)
  return {
    name: state.name,
    arguments: changed,
    requestState: tampered,
    inputResponses: {
      approve_statement: {
        action: accept ? "accept" : random.pick(["decline", "cancel"]),
        content: { approved: accept }
      }
    }
  }
}

/** A legacy-era request (2025-11-25 / 2025-06-18): initialize, ping, logging/setLevel, or a method under a session. */
const legacy = (random: Random): Rpc => {
  const method = random.pick([
    "initialize",
    "initialize",
    "ping",
    "logging/setLevel",
    "tools/list",
    "resources/list",
    "prompts/list",
    "server/discover"
  ])
  if (method === "initialize") {
    return {
      method,
      era: "legacy",
      params: {
        protocolVersion: random.pick(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", ""]),
        capabilities: {},
        clientInfo: { name: "legacy-fuzz", version: "1" }
      }
    }
  }
  return {
    method,
    era: "legacy",
    params: method === "logging/setLevel" ? { level: random.pick(["debug", "info", "loud"]) } : {}
  }
}

const notification = (random: Random): Rpc => ({
  method: random.pick([
    "notifications/cancelled",
    "notifications/cancelled",
    "notifications/initialized",
    "notifications/progress",
    "notifications/whatever"
  ]),
  era: "modern",
  notification: true,
  params: { requestId: random.chance(0.5) ? random.int(0, 100) : random.text(6), reason: "fuzz", _meta: meta(random) }
})

export const wellFormed = (random: Random, target: FuzzTarget): Rpc => {
  const roll = random.next()
  if (roll < 0.8) return modern(random, target)
  if (roll < 0.92) return legacy(random)
  return notification(random)
}
