// The structure view's CHECK constraints, triggers and incoming references on SQLite. SQLite keeps no catalog of
// CHECK constraints or trigger timings: they are read from the stored CREATE statements with a small tokenizer that
// skips strings, quoted identifiers and comments (so a CHECK inside a string or a column named "check" is not one).
import type Database from "better-sqlite3"
import type {
  CheckDescription,
  IncomingReference,
  StructureDetails,
  TriggerDescription
} from "../../../domain/TableStructure.ts"
import { findTable, foreignKeys } from "./SqliteCatalog.ts"

interface Token {
  readonly kind: "word" | "quoted" | "string" | "punct"
  readonly text: string
  readonly start: number
  readonly end: number
}

const CLOSERS: Record<string, string> = { "\"": "\"", "`": "`", "[": "]", "'": "'" }

export const tokenize = (sql: string): Array<Token> => {
  const tokens: Array<Token> = []
  let i = 0
  while (i < sql.length) {
    const c = sql[i]!
    if (/\s/.test(c)) i++
    else if (c === "-" && sql[i + 1] === "-") i = sql.includes("\n", i) ? sql.indexOf("\n", i) + 1 : sql.length
    else if (c === "/" && sql[i + 1] === "*") i = sql.includes("*/", i + 2) ? sql.indexOf("*/", i + 2) + 2 : sql.length
    else if (CLOSERS[c] !== undefined) {
      const close = CLOSERS[c]
      let j = i + 1
      for (;;) {
        const at = sql.indexOf(close, j)
        if (at < 0) {
          j = sql.length
          break
        }
        // a doubled quote is an escaped quote ('' or ""), brackets have no escape
        if (close !== "]" && sql[at + 1] === close) j = at + 2
        else {
          j = at + 1
          break
        }
      }
      tokens.push({ kind: c === "'" ? "string" : "quoted", text: sql.slice(i, j), start: i, end: j })
      i = j
    } else if (/[\w$]/.test(c)) {
      let j = i
      while (j < sql.length && /[\w$]/.test(sql[j]!)) j++
      tokens.push({ kind: "word", text: sql.slice(i, j), start: i, end: j })
      i = j
    } else {
      tokens.push({ kind: "punct", text: c, start: i, end: i + 1 })
      i++
    }
  }
  return tokens
}

/** An identifier token's name: quotes removed, doubled quotes undone. */
const identifier = (token: Token): string => {
  if (token.kind !== "quoted") return token.text
  const close = token.text.startsWith("[") ? "]" : token.text[0]!
  const inner = token.text.slice(1, -1)
  return close === "]" ? inner : inner.replaceAll(close + close, close)
}

const isWord = (token: Token | undefined, word: string) => token?.kind === "word" && token.text.toUpperCase() === word

/** Every `[CONSTRAINT name] CHECK (expression)` of a CREATE TABLE statement, column or table constraint. */
export const checksOf = (sql: string): Array<CheckDescription> => {
  const tokens = tokenize(sql)
  const checks: Array<CheckDescription> = []
  tokens.forEach((token, index) => {
    if (!isWord(token, "CHECK") || tokens[index + 1]?.text !== "(") return
    let depth = 0
    let close = index + 1
    for (; close < tokens.length; close++) {
      const text = tokens[close]!.text
      if (tokens[close]!.kind === "punct" && text === "(") depth++
      else if (tokens[close]!.kind === "punct" && text === ")" && --depth === 0) break
    }
    const open = tokens[index + 1]!
    const end = tokens[close]?.start ?? sql.length
    const named = isWord(tokens[index - 2], "CONSTRAINT") && tokens[index - 1] !== undefined
    checks.push({ name: named ? identifier(tokens[index - 1]!) : null, expression: sql.slice(open.end, end).trim() })
  })
  return checks
}

/** Timing and event of a CREATE TRIGGER statement; SQLite's default timing is BEFORE. */
export const triggerHeader = (sql: string): { readonly timing: string; readonly event: string } => {
  const tokens = tokenize(sql)
  let at = tokens.findIndex((token) => isWord(token, "TRIGGER")) + 1
  if (isWord(tokens[at], "IF")) at += 3
  at++ // the name
  if (tokens[at]?.text === ".") at += 2 // schema.name
  let timing = "BEFORE"
  if (isWord(tokens[at], "BEFORE") || isWord(tokens[at], "AFTER")) timing = tokens[at++]!.text.toUpperCase()
  else if (isWord(tokens[at], "INSTEAD")) {
    timing = "INSTEAD OF"
    at += 2
  }
  const onAt = tokens.findIndex((token, index) => index >= at && isWord(token, "ON"))
  const event = sql.slice(tokens[at]?.start ?? 0, tokens[onAt]?.start ?? sql.length).trim().replace(/\s+/g, " ")
  return { timing, event: event.replace(/^(DELETE|INSERT|UPDATE)\b/i, (word) => word.toUpperCase()) }
}

const triggers = (db: Database.Database, table: string): Array<TriggerDescription> =>
  (db.prepare(
    "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name"
  ).all(table) as Array<
    { name: string; sql: string | null }
  >).map((row) => ({ name: row.name, ...triggerHeader(row.sql ?? ""), definition: row.sql ?? "" }))

/** Foreign keys of every other table (and the table itself) whose referenced table is `table` (SQLite compares names without case). */
const incoming = (db: Database.Database, table: string): Array<IncomingReference> => {
  const names = db.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
  ).pluck().all() as Array<string>
  return names.flatMap((name) =>
    foreignKeys(db, name)
      .filter((key) => key.referenced_table.toLowerCase() === table.toLowerCase())
      .map((key) => ({ name: null, table: name, columns: key.columns, referenced_columns: key.referenced_columns }))
  )
}

export const structureDetails = (db: Database.Database, name: string): StructureDetails => {
  const table = findTable(db, name)
  return {
    checks: table.type === "table" ? checksOf(table.sql ?? "") : [],
    triggers: triggers(db, table.name),
    referenced_by: table.type === "table" ? incoming(db, table.name) : [],
    // the DDL (SqliteCatalog.ddlOf) already has the triggers, and SQLite has no comments
    ddl_additions: []
  }
}
