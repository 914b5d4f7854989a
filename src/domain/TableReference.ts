import { SECRET_CATALOGS, type SecretCatalog } from "./SecretCatalogs.ts"
import type { SqlDialect } from "./SqlLexer.ts"

/**
 * A table argument of a structured tool (browse_table, count_rows, describe_table, get_table_ddl, insert_rows, the
 * resources and prompts that name a table) and the `schema` / `database` given with it, read the way the database
 * reads a name: the readings to look up, in order. `schema` undefined means the search path (PostgreSQL), the current
 * database (MySQL), `main` (SQLite). The driver looks the readings up in its catalog and the first that exists is the
 * object it reads; the guard decides on that object (`secretCatalogOf`), never on the text as given.
 */
export interface TableReading {
  readonly schema?: string | undefined
  readonly name: string
}

/** A table found in the catalog: PostgreSQL's schema, MySQL's database, SQLite's `main`, with its stored name. */
export interface ResolvedRelation {
  readonly schema: string
  readonly name: string
}

const QUOTES: Readonly<Record<SqlDialect, ReadonlyArray<readonly [string, string]>>> = {
  postgresql: [["\"", "\""]],
  mysql: [["`", "`"], ["\"", "\""]],
  sqlite: [["\"", "\""], ["`", "`"], ["[", "]"]]
}

/** PostgreSQL's `U&"…"` escapes (default escape character): `\XXXX`, `\+XXXXXX`, `\\`. Undefined when malformed. */
const unicodeEscapes = (text: string): string | undefined => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char !== "\\") {
      out += char
      continue
    }
    if (text[i + 1] === "\\") {
      out += "\\"
      i++
      continue
    }
    const long = text[i + 1] === "+"
    const digits = long ? text.slice(i + 2, i + 8) : text.slice(i + 1, i + 5)
    if (!/^[0-9A-Fa-f]+$/.test(digits) || digits.length !== (long ? 6 : 4)) return undefined
    const code = Number.parseInt(digits, 16)
    if (code > 0x10ffff) return undefined
    out += String.fromCodePoint(code)
    i += long ? 7 : 4
  }
  return out
}

/**
 * The parts of a dotted name as the dialect reads it: quoted parts exact (a doubled closing quote is one), unquoted
 * parts folded as the database folds them (PostgreSQL to lower case; MySQL and SQLite keep them), whitespace around
 * parts and dots ignored. Undefined when the text is not a name in that dialect.
 */
export const identifierParts = (dialect: SqlDialect, text: string): ReadonlyArray<string> | undefined => {
  const parts: Array<string> = []
  let i = 0
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++
  }
  for (;;) {
    skipSpace()
    let part: string | undefined
    const unicode = dialect === "postgresql" && /^[Uu]&"/.test(text.slice(i, i + 3))
    if (unicode) i += 2
    const quote = QUOTES[dialect].find(([open]) => text[i] === open)
    if (quote !== undefined) {
      const [, close] = quote
      let value = ""
      i++
      for (;;) {
        if (i >= text.length) return undefined
        if (text[i] === close) {
          if (close !== "]" && text[i + 1] === close) {
            value += close
            i += 2
            continue
          }
          i++
          break
        }
        value += text[i]
        i++
      }
      part = unicode ? unicodeEscapes(value) : value
      if (part === undefined || part === "") return undefined
    } else {
      if (unicode) return undefined
      const match = /^[\p{L}_][\p{L}\p{N}_$]*/u.exec(text.slice(i))
      if (match === null) return undefined
      part = dialect === "postgresql" ? match[0].toLowerCase() : match[0]
      i += match[0].length
    }
    parts.push(part)
    skipSpace()
    if (i >= text.length) return parts
    if (text[i] !== ".") return undefined
    i++
  }
}

/**
 * The readings of a table argument, in the order the driver tries them: a dotted SQL name first (it names its schema
 * or database), then the text exactly as given (a table whose stored name has dots, quotes or capitals), then the
 * text read as one SQL identifier. A `schema` or `database` argument fixes where every reading is looked up. `exact`:
 * the table is a stored name the driver resolved before (the tools read exactly the object the gate decided on).
 */
export const tableReadings = (
  dialect: SqlDialect | "search",
  table: string,
  schema?: string,
  exact?: boolean
): ReadonlyArray<TableReading> => {
  if (dialect === "search" || exact === true) return [{ schema, name: table }]
  const readings: Array<TableReading> = []
  const add = (reading: TableReading) => {
    if (!readings.some((known) => known.schema === reading.schema && known.name === reading.name)) {
      readings.push(reading)
    }
  }
  const parts = identifierParts(dialect, table)
  if (schema === undefined && parts !== undefined && parts.length === 2) add({ schema: parts[0]!, name: parts[1]! })
  add({ schema, name: table })
  if (parts !== undefined && parts.length === 1) add({ schema, name: parts[0]! })
  return readings
}

/**
 * The secret catalog an object of the catalog is (or undefined): the one matching of a resolved object against the
 * list, for the table gate, the listings and the drivers' origin checks. Names compare case-insensitively (MySQL's
 * `mysql` database and information_schema ignore case on some systems; PostgreSQL's catalogs are lower case).
 */
export const secretCatalogOf = (dialect: SqlDialect, relation: ResolvedRelation): SecretCatalog | undefined => {
  const schema = relation.schema.toLowerCase()
  const name = relation.name.toLowerCase()
  return SECRET_CATALOGS[dialect].find((catalog) =>
    catalog.name === name && (catalog.anySchema === true || catalog.schema === schema)
  )
}
