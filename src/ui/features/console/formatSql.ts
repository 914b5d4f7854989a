import { formatDialect, mysql, postgresql, sqlite } from "sql-formatter"

/** sql-formatter's dialect per connection type; MariaDB connections are `mysql` connections and share its grammar. */
const FORMATTERS = { sqlite, postgresql, mysql } as const

/**
 * The console's Format (D-102): sql-formatter in the connection's dialect, keywords kept as typed, two-space indents.
 * Text it cannot parse throws an Error with the first line of its message (where it stopped), not its grammar dump.
 */
export const formatSql = (text: string, dialect: keyof typeof FORMATTERS): string => {
  try {
    return formatDialect(text, {
      dialect: FORMATTERS[dialect],
      tabWidth: 2,
      keywordCase: "preserve",
      linesBetweenQueries: 1
    })
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split("\n")[0]?.replace(
      /^Parse error at token: .*? at /i,
      "stopped at "
    ) ?? ""
    throw new Error(first)
  }
}
