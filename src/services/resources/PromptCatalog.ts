/** One argument of a prompt; values are strings (MCP prompt arguments). */
export interface PromptArgument {
  readonly name: string
  readonly description: string
  readonly required: boolean
}

export interface PromptDefinition {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly arguments: ReadonlyArray<PromptArgument>
}

const connection: PromptArgument = {
  name: "connection",
  description: "The connection: its id or its name (case-insensitive), from list_connections",
  required: true
}
const table: PromptArgument = {
  name: "table",
  description: "Name of a table of that connection, from list_tables",
  required: true
}

/** The five prompts of D-49, sorted by name; identical for every caller. */
export const PROMPTS: ReadonlyArray<PromptDefinition> = [
  {
    name: "data_quality_audit",
    title: "Data quality audit",
    description:
      "A checklist of runnable read-only queries that look for data-quality problems in one table, cheapest first.",
    arguments: [connection, table]
  },
  {
    name: "explain_schema",
    title: "Explain a schema",
    description: "A tour of a connection's tables and how they relate, from its live schema.",
    arguments: [connection]
  },
  {
    name: "explain_table",
    title: "Explain a table",
    description: "What one table holds: columns, keys, indexes and DDL, ending with three useful queries.",
    arguments: [connection, table]
  },
  {
    name: "question_to_sql",
    title: "Question to SQL",
    description: "Turns a question in plain words into one read-only SQL statement over the live schema.",
    arguments: [connection, { name: "question", description: "The question to answer with SQL", required: true }]
  },
  {
    name: "search_collection",
    title: "Search a collection",
    description: "Plans a search over a collection of a search-engine connection to reach a goal.",
    arguments: [
      connection,
      {
        name: "collection",
        description: "Name of a collection of that search connection, from list_tables",
        required: true
      },
      { name: "goal", description: "What you want to find", required: true }
    ]
  }
]

export const promptNamed = (name: string): PromptDefinition | undefined =>
  PROMPTS.find((prompt) => prompt.name === name)

/** How `prompts/list` shows a prompt. */
export const promptListing = (prompt: PromptDefinition) => ({
  name: prompt.name,
  title: prompt.title,
  description: prompt.description,
  arguments: prompt.arguments.map((argument) => ({ ...argument }))
})
