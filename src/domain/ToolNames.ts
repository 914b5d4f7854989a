import { TOOL_NAME } from "./CuratedTool.ts"

/** The preset of a toolset for clients that pay per token: three built-in tools and every curated tool. */
export const LEAN_PRESET = "lean"

/**
 * The built-in tools' names, for the CLI and the UI, which check a curated tool's name without building the server (the
 * server checks against its registry).
 */
export const BUILT_IN_TOOL_NAMES: ReadonlyArray<string> = [
  "browse_table",
  "confirm_destructive_operation",
  "count_rows",
  "describe_table",
  "execute_query",
  "explain_query",
  "export_data",
  "fetch_more",
  "get_connection_status",
  "get_table_ddl",
  "insert_rows",
  "list_connections",
  "list_databases",
  "list_schemas",
  "list_tables",
  "search_documents",
  "search_schema"
]

/** Why a curated tool cannot take the name (MCP's name rule, a built-in tool, the preset, a tool of the file), or undefined. */
export const toolNameProblem = (name: string, taken: ReadonlyArray<string>): string | undefined =>
  name === ""
    ? "Give the tool a name."
    : !TOOL_NAME.test(name)
    ? "A tool name is 1 to 128 letters, digits, _, - or . (no spaces)."
    : BUILT_IN_TOOL_NAMES.includes(name)
    ? `${name} is the name of a built-in tool.`
    : name === LEAN_PRESET
    ? `${LEAN_PRESET} names the preset of a toolset, so no tool may take it.`
    : taken.includes(name)
    ? `A curated tool is already named ${name}.`
    : undefined
