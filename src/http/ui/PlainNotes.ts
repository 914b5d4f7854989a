/**
 * The UI speaks to a person, not to a model: the answer notes the drivers write for MCP clients (which name settings
 * such as limits.maxAnswerBytes and tool arguments such as offset or max_rows) become plain sentences here, and a note
 * that only tells a client how to page is dropped, since the grid has its own paging.
 */
const part = (text: string): string | undefined => {
  if (/^showing the first \d+ rows; (read the next rows with offset|narrow the query with WHERE)/.test(text)) {
    return undefined
  }
  const rows = /^showing the first (\d+) rows/.exec(text)
  if (text.includes("maxAnswerBytes") || text.includes("× limits")) {
    return rows === null
      ? "Not even one row fits in one answer: choose fewer columns in the Console."
      : `Only ${
        Number(rows[1]).toLocaleString("en-US")
      } rows fit in one answer here: choose a smaller page size, add filters, or select fewer columns in the Console.`
  }
  if (text.includes("maxCellBytes")) {
    return "Some long values are shortened here: read one whole in the Console with substr()."
  }
  if (/limits\.|max_rows|offset|browse_table|execute_query/.test(text)) return undefined
  return text
}

/** The notes shown under the grid for one driver status message (possibly several parts joined by "; "). */
export const plainNotes = (message: string | undefined): Array<string> => {
  if (message === undefined) return []
  const pieces = message.split(/; (?=showing the first|\d+ values? (?:was|were) cut|no row shown)/)
  return pieces.flatMap((piece) => {
    const text = part(piece.trim())
    return text === undefined ? [] : [text]
  })
}

/** The console's line under a capped result: how many rows are shown and what to do about the rest. */
export const plainConsoleNote = (message: string | undefined, rowCount: number, truncated: boolean): string | null => {
  if (message === undefined) return truncated ? `Showing the first ${rowCount.toLocaleString("en-US")} rows.` : null
  if (/^showing the first \d+ rows/.test(message) && !/maxAnswerBytes|maxCellBytes/.test(message)) {
    return `Showing the first ${
      rowCount.toLocaleString("en-US")
    } rows: add a WHERE or a LIMIT to the query to see the others.`
  }
  const notes = plainNotes(message)
  return notes.length === 0
    ? (truncated ? `Showing the first ${rowCount.toLocaleString("en-US")} rows.` : null)
    : notes.join(" ")
}
