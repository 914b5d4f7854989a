import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { SqlDialect } from "../../src/domain/SqlLexer.ts"
import { identifierParts, secretCatalogOf, tableReadings } from "../../src/domain/TableReference.ts"

const QUOTES: Readonly<Record<SqlDialect, ReadonlyArray<readonly [string, string]>>> = {
  postgresql: [["\"", "\""]],
  mysql: [["`", "`"], ["\"", "\""]],
  sqlite: [["\"", "\""], ["`", "`"], ["[", "]"]]
}

const quote = ([open, close]: readonly [string, string], text: string) => `${open}${close === "]" ? text : text.split(close).join(close + close)}${close}`
const space = FastCheck.constantFrom("", " ", "\t", "\n  ")
const name = FastCheck.string({ minLength: 1, maxLength: 12, unit: "grapheme" })
const dialect = FastCheck.constantFrom<SqlDialect>("postgresql", "mysql", "sqlite")

describe("a table argument is read the way its database reads a name", () => {
  it.prop("every quoting of a qualified name reads back as its two parts, and that is the first reading tried", [dialect, name, name, space, space, FastCheck.nat()], ([sql, schema, table, before, after, pick]) => {
    const quotes = QUOTES[sql]
    const [open, close] = quotes[pick % quotes.length]!
    // SQLite's [brackets] cannot hold a closing bracket.
    if (close === "]" && (schema.includes("]") || table.includes("]"))) return
    const text = `${before}${quote([open, close], schema)}${after}.${before}${quote([open, close], table)}${after}`
    expect(identifierParts(sql, text)).toEqual([schema, table])
    expect(tableReadings(sql, text)[0]).toEqual({ schema, name: table })
  })

  it.prop("an unquoted PostgreSQL name folds to lower case; MySQL and SQLite keep its case", [FastCheck.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)], ([word]) => {
    expect(identifierParts("postgresql", word)).toEqual([word.toLowerCase()])
    expect(identifierParts("mysql", word)).toEqual([word])
    expect(identifierParts("sqlite", word)).toEqual([word])
  })

  it("PostgreSQL's Unicode escapes name the catalog they spell", () => {
    expect(identifierParts("postgresql", "U&\"pg\\005fcatalog\" . U&\"pg\\+00005Fauthid\"")).toEqual(["pg_catalog", "pg_authid"])
    expect(identifierParts("postgresql", "U&\"\\zz\"")).toBeUndefined()
  })

  it("a schema argument fixes where every reading is looked up; the text as given is always one of them", () => {
    expect(tableReadings("postgresql", "pg_catalog.pg_authid", "public")).toEqual([{ schema: "public", name: "pg_catalog.pg_authid" }])
    expect(tableReadings("postgresql", "\"Users\"", "app")).toEqual([{ schema: "app", name: "\"Users\"" }, { schema: "app", name: "Users" }])
    expect(tableReadings("mysql", "we.ird")).toEqual([{ schema: "we", name: "ird" }, { schema: undefined, name: "we.ird" }])
    expect(tableReadings("mysql", "we.ird", "app", true)).toEqual([{ schema: "app", name: "we.ird" }])
  })

  it("the one match of a resolved object against the secret catalogs ignores case, and an extension's view is matched in any schema", () => {
    expect(secretCatalogOf("mysql", { schema: "MySQL", name: "USER" })?.name).toBe("user")
    expect(secretCatalogOf("mysql", { schema: "information_schema", name: "PROCESSLIST" })?.name).toBe("processlist")
    expect(secretCatalogOf("mysql", { schema: "app", name: "user" })).toBeUndefined()
    expect(secretCatalogOf("postgresql", { schema: "public", name: "pg_authid" })).toBeUndefined()
    expect(secretCatalogOf("postgresql", { schema: "monitoring", name: "pg_stat_statements" })?.name).toBe("pg_stat_statements")
  })
})
