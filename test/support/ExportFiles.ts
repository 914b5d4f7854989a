// Reading exported files back, independently of the exporter: an RFC 4180 reader (an unquoted empty field is NULL,
// as psql's CSV reads it; a quoted one is an empty text) and JSON Lines.
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"

export const parseCsv = (text: string): Array<Array<string | null>> => {
  const rows: Array<Array<string | null>> = []
  let row: Array<string | null> = []
  let at = 0
  while (at < text.length) {
    let field: string | null
    if (text[at] === "\"") {
      let value = ""
      at++
      for (;;) {
        const quote = text.indexOf("\"", at)
        if (quote < 0) throw new Error("unterminated quoted field")
        value += text.slice(at, quote)
        at = quote + 1
        if (text[at] === "\"") {
          value += "\""
          at++
        } else break
      }
      field = value
    } else {
      let end = at
      while (end < text.length && text[end] !== "," && text[end] !== "\n") end++
      field = end === at ? null : text.slice(at, end)
      at = end
    }
    row.push(field)
    if (text[at] === ",") at++
    else if (text[at] === "\n" || at >= text.length) {
      rows.push(row)
      row = []
      at++
    } else throw new Error(`unexpected ${JSON.stringify(text[at])} at ${at}`)
  }
  return rows
}

export const parseJsonLines = (text: string): Array<Record<string, unknown>> =>
  text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>)

/** The files in a folder, hidden temporary ones included. */
export const filesIn = (directory: string): Array<string> => readdirSync(directory).sort()

export const expectPrivateFile = (path: string) => {
  expect(statSync(path).mode & 0o777).toBe(0o600)
}

export const exported = (result: any) => {
  expect(result.isError, JSON.stringify(result).slice(0, 2000)).toBe(false)
  const link = (result.content as Array<any>).find((item) => item.type === "resource_link")
  return {
    ...result.structuredContent as {
      path: string
      rows: number
      bytes: number
      preview: { columns: Array<string>; rows: Array<Array<unknown>> }
    },
    link,
    text: result.content[0].text as string
  }
}

export const inFolder = (directory: string, name: string) => join(directory, name)
