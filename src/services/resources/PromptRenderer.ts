import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import type { Principal } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { TableDescription } from "../../domain/SqlTable.ts"
import { capAnswerText } from "../../domain/JsonBudget.ts"
import { SettingsStore } from "../Settings.ts"
import { LiveSchema, type SchemaSnapshot } from "./LiveSchema.ts"
import { type PromptDefinition, promptNamed } from "./PromptCatalog.ts"

/** Identifier quoting of the connection's SQL: MySQL reads "…" as a string, so it gets backticks. */
const quoterFor = (connection: Connection) => (name: string) =>
  connection.type === "mysql" ? `\`${name.replaceAll("`", "``")}\`` : `"${name.replaceAll("\"", "\"\"")}"`
const DIALECTS: Record<Connection["type"], string> = {
  sqlite: "SQLite",
  postgresql: "PostgreSQL",
  mysql: "MySQL/MariaDB",
  search: "the search engine's request console"
}
const dialectOf = (connection: Connection) => DIALECTS[connection.type]

const columnLine = (column: TableDescription["columns"][number]) =>
  `| ${column.name} | ${column.data_type || "(untyped)"} | ${column.is_nullable ? "yes" : "no"} | ${
    column.is_primary_key ? "yes" : ""
  } |`

const columnsTable = (columns: TableDescription["columns"]) =>
  ["| column | type | nullable | primary key |", "|---|---|---|---|", ...columns.map(columnLine)].join("\n")

const inventory = (snapshot: SchemaSnapshot) =>
  [
    ...snapshot.tables.map((table) => {
      const columns = table.columns.map((column) =>
        `${column.name} ${column.data_type}${column.is_primary_key ? " PK" : ""}`
      ).join(", ")
      const keys = table.foreign_keys.map((key) =>
        `${key.columns.join(", ")} → ${key.referenced_table}(${key.referenced_columns.join(", ")})`
      )
      return `- **${table.name}** (${table.type}): ${columns}${
        keys.length > 0 ? `; references ${keys.join("; ")}` : ""
      }`
    }),
    ...(snapshot.truncated
      ? [`- … and ${snapshot.totalTables - snapshot.tables.length} more tables not shown (call list_tables)`]
      : [])
  ].join("\n")

const header = (connection: Connection) =>
  `Connection **${connection.name}** (id \`${connection.id}\`, ${
    dialectOf(connection)
  }). Use the dbdesk tools with \`connection_id: "${connection.id}"\`.`

/**
 * `prompts/get` for the five prompts of D-49: arguments checked against the
 * declaration (-32602 for undeclared or missing ones), the connection behind its gates (-33007),
 * then a Markdown brief rendered from the connection's live schema.
 */
export class PromptRenderer extends Effect.Service<PromptRenderer>()("dbdesk/services/resources/PromptRenderer", {
  effect: Effect.gen(function*() {
    const schema = yield* LiveSchema
    const settings = yield* SettingsStore

    const checkArguments = (prompt: PromptDefinition, raw: unknown) =>
      Effect.gen(function*() {
        if (raw !== undefined && !isJsonObject(raw)) {
          return yield* ProtocolError.invalidParams("params.arguments must be an object of strings")
        }
        const args: JsonObject = raw ?? {}
        const declared = new Set(prompt.arguments.map((argument) => argument.name))
        const undeclared = Object.keys(args).filter((key) => !declared.has(key))
        if (undeclared.length > 0) {
          return yield* ProtocolError.invalidParams(
            `${prompt.name} does not take ${undeclared.join(", ")}; it takes ${[...declared].join(", ")}`,
            { prompt: prompt.name, undeclared }
          )
        }
        const values: Record<string, string> = {}
        for (const argument of prompt.arguments) {
          const value = args[argument.name]
          if (value !== undefined && typeof value !== "string") {
            return yield* ProtocolError.invalidParams(`argument ${argument.name} of ${prompt.name} must be a string`, {
              prompt: prompt.name,
              argument: argument.name
            })
          }
          if (argument.required && (value === undefined || value.trim() === "")) {
            return yield* ProtocolError.invalidParams(
              `${prompt.name} needs the argument ${argument.name}: ${argument.description}`,
              { prompt: prompt.name, missing: argument.name }
            )
          }
          if (value !== undefined) values[argument.name] = value
        }
        return values
      })

    const render = (prompt: PromptDefinition, connection: Connection, args: Record<string, string>) =>
      Effect.gen(function*() {
        const table = args["table"] ?? ""
        switch (prompt.name) {
          case "explain_schema": {
            const snapshot = yield* schema.snapshot(connection)
            return [
              `# Explain the schema of ${connection.name}`,
              header(connection),
              "",
              `## Tables (${snapshot.totalTables})`,
              inventory(snapshot),
              "",
              "## Your task",
              "Explain this schema to someone who has not seen it: group the tables by purpose, describe how they relate through the keys above, and name the tables to start from for common questions. Use only the tables and columns listed; call describe_table for indexes or DDL before making claims about them."
            ]
          }
          case "explain_table": {
            const description = yield* schema.describe(connection, table)
            const ddl = description.ddl ?? (yield* schema.ddl(connection, table))
            const quote = quoterFor(connection)
            const name = quote(description.table)
            const keys = description.foreign_keys.map((key) =>
              `- ${key.columns.join(", ")} → ${key.referenced_table}(${key.referenced_columns.join(", ")})`
            )
            const indexes = description.indexes.map((index) =>
              `- ${index.name}: ${index.columns.join(", ")}${index.is_unique ? " (unique)" : ""}`
            )
            return [
              `# Explain the table ${description.table}`,
              header(connection),
              "",
              "## Columns",
              columnsTable(description.columns),
              "",
              "## Foreign keys",
              ...(keys.length > 0 ? keys : ["(none)"]),
              "",
              "## Indexes",
              ...(indexes.length > 0 ? indexes : ["(none)"]),
              "",
              "## DDL",
              "```sql",
              ddl,
              "```",
              "",
              "## Your task",
              `Explain what one row of ${description.table} represents, what each column means and how the table connects to others. End with three useful read-only queries, for example:`,
              "```sql",
              `SELECT * FROM ${name} LIMIT 20;`,
              `SELECT COUNT(*) FROM ${name};`,
              "```"
            ]
          }
          case "question_to_sql": {
            const snapshot = yield* schema.snapshot(connection)
            return [
              "# Turn a question into SQL",
              header(connection),
              "",
              "## Question",
              args["question"] ?? "",
              "",
              `## Schema (${snapshot.totalTables} tables)`,
              inventory(snapshot),
              "",
              "## Rules",
              `- Write one read-only ${dialectOf(connection)} statement (SELECT or WITH … SELECT).`,
              "- Use only the tables and columns listed above; never invent a column. Call describe_table if you are unsure.",
              "- Always end with a LIMIT (500 or less) unless the query aggregates to a few rows.",
              "- Run it with execute_query, then answer the question from the rows and show the SQL you ran."
            ]
          }
          case "data_quality_audit": {
            const description = yield* schema.describe(connection, table)
            const quote = quoterFor(connection)
            const name = quote(description.table)
            const nullable = description.columns.filter((column) => column.is_nullable)
            const keys = description.columns.filter((column) => column.is_primary_key)
            const checks = [
              ["Row count", `SELECT COUNT(*) AS row_count FROM ${name};`],
              ...(nullable.length > 0
                ? [[
                  "Missing values",
                  `SELECT ${
                    nullable.map((column) =>
                      `SUM(CASE WHEN ${quote(column.name)} IS NULL THEN 1 ELSE 0 END) AS ${
                        quote(`${column.name}_nulls`)
                      }`
                    ).join(", ")
                  } FROM ${name};`
                ]]
                : []),
              ...(keys.length > 0
                ? [[
                  "Duplicate keys",
                  `SELECT ${
                    keys.map((column) => quote(column.name)).join(", ")
                  }, COUNT(*) AS copies FROM ${name} GROUP BY ${
                    keys.map((column) => quote(column.name)).join(", ")
                  } HAVING COUNT(*) > 1 LIMIT 50;`
                ]]
                : []),
              ...description.foreign_keys.map((key) => [
                `Orphans in ${key.columns.join(", ")}`,
                `SELECT COUNT(*) AS orphans FROM ${name} AS child LEFT JOIN ${
                  quote(key.referenced_table)
                } AS parent ON ${
                  key.columns.map((column, index) =>
                    `child.${quote(column)} = parent.${quote(key.referenced_columns[index] ?? column)}`
                  ).join(" AND ")
                } WHERE parent.${quote(key.referenced_columns[0] ?? "")} IS NULL AND child.${
                  quote(key.columns[0] ?? "")
                } IS NOT NULL;`
              ])
            ]
            return [
              `# Data quality audit of ${description.table}`,
              header(connection),
              "",
              "## Columns",
              columnsTable(description.columns),
              "",
              "## Checks, cheapest first (run each with execute_query)",
              ...checks.flatMap(([title, sql], index) => [`${index + 1}. ${title}`, "```sql", sql ?? "", "```"]),
              "",
              "## Your task",
              "Run the checks in order, then report each problem found with its size and an example row, and suggest a fix. All checks are read-only; do not change data."
            ]
          }
          default: {
            const collection = args["collection"] ?? ""
            if (connection.type !== "search") {
              return yield* ProtocolError.invalidParams(
                `'${connection.name}' is a ${connection.type} connection; search_collection needs a search-engine connection (use question_to_sql)`,
                { argument: "connection" }
              )
            }
            const fields = yield* schema.describe(connection, collection).pipe(
              Effect.map((description) => columnsTable(description.columns)),
              Effect.catchIf(
                (error) => error.data?.["reason"] === "unsupported",
                () => Effect.succeed("(call describe_table for the collection's fields)")
              )
            )
            return [
              `# Search the collection ${collection}`,
              header(connection),
              "",
              "## Goal",
              args["goal"] ?? "",
              "",
              "## Fields",
              fields,
              "",
              "## Your task",
              "Plan one or more search_documents calls that reach the goal: choose query_by from text fields, filter_by and sort_by only on fields that allow it (sortable ones are marked by describe_table), and page with per_page ≤ 250. Report what you found and the requests you made."
            ]
          }
        }
      })

    const get = Effect.fn("PromptRenderer.get")(function*(principal: Principal, name: unknown, rawArguments: unknown) {
      const prompt = typeof name === "string" ? promptNamed(name) : undefined
      if (prompt === undefined) {
        return yield* ProtocolError.invalidParams(
          `Unknown prompt ${JSON.stringify(name)}; call prompts/list for the prompts`,
          { prompt: typeof name === "string" ? name : null }
        )
      }
      const args = yield* checkArguments(prompt, rawArguments)
      const connection = yield* schema.resolveByIdOrName(principal, args["connection"] ?? "")
      const lines = yield* render(prompt, connection, args)
      // D-71: a brief rendered from a huge schema is cut at limits.maxAnswerBytes like any answer
      const { limits } = yield* settings.current
      const brief = capAnswerText(
        lines.join("\n"),
        limits,
        "the schema is too large for one brief: read dbdesk://connections/{id}/tables and describe tables one at a time"
      )
      return {
        description: `${prompt.title} — ${connection.name}`,
        messages: [{ role: "user", content: { type: "text", text: brief.text } }]
      } satisfies JsonObject
    })

    return { get } as const
  })
}) {}
