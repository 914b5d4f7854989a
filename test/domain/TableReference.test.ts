import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { SqlDialect } from "../../src/domain/SqlLexer.ts"
import { statementGate } from "../../src/domain/StatementGate.ts"
import { identifierParts, secretCatalogOf, tableReadings } from "../../src/domain/TableReference.ts"

const QUOTES: Readonly<Record<SqlDialect, ReadonlyArray<readonly [string, string]>>> = {
  postgresql: [["\"", "\""]],
  mysql: [["`", "`"], ["\"", "\""]],
  sqlite: [["\"", "\""], ["`", "`"], ["[", "]"]]
}

const quote = ([open, close]: readonly [string, string], text: string) =>
  `${open}${close === "]" ? text : text.split(close).join(close + close)}${close}`
const space = FastCheck.constantFrom("", " ", "\t", "\n  ")
const name = FastCheck.string({ minLength: 1, maxLength: 12, unit: "grapheme" })
const dialect = FastCheck.constantFrom<SqlDialect>("postgresql", "mysql", "sqlite")

describe("a table argument is read the way its database reads a name", () => {
  it.prop("every quoting of a qualified name reads back as its two parts, and that is the first reading tried", [
    dialect,
    name,
    name,
    space,
    space,
    FastCheck.nat()
  ], ([sql, schema, table, before, after, pick]) => {
    const quotes = QUOTES[sql]
    const [open, close] = quotes[pick % quotes.length]!
    // SQLite's [brackets] cannot hold a closing bracket.
    if (close === "]" && (schema.includes("]") || table.includes("]"))) return
    const text = `${before}${quote([open, close], schema)}${after}.${before}${quote([open, close], table)}${after}`
    expect(identifierParts(sql, text)).toEqual([schema, table])
    expect(tableReadings(sql, text)[0]).toEqual({ schema, name: table })
  })

  it.prop("an unquoted PostgreSQL name folds to lower case; MySQL and SQLite keep its case", [
    FastCheck.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)
  ], ([word]) => {
    expect(identifierParts("postgresql", word)).toEqual([word.toLowerCase()])
    expect(identifierParts("mysql", word)).toEqual([word])
    expect(identifierParts("sqlite", word)).toEqual([word])
  })

  it("PostgreSQL's Unicode escapes name the catalog they spell", () => {
    expect(identifierParts("postgresql", "U&\"pg\\005fcatalog\" . U&\"pg\\+00005Fauthid\"")).toEqual([
      "pg_catalog",
      "pg_authid"
    ])
    expect(identifierParts("postgresql", "U&\"\\zz\"")).toBeUndefined()
  })

  it("a schema argument fixes where every reading is looked up; the text as given is always one of them", () => {
    expect(tableReadings("postgresql", "pg_catalog.pg_authid", "public")).toEqual([{
      schema: "public",
      name: "pg_catalog.pg_authid"
    }])
    expect(tableReadings("postgresql", "\"Users\"", "app")).toEqual([{ schema: "app", name: "\"Users\"" }, {
      schema: "app",
      name: "Users"
    }])
    expect(tableReadings("mysql", "we.ird")).toEqual([{ schema: "we", name: "ird" }, {
      schema: undefined,
      name: "we.ird"
    }])
    expect(tableReadings("mysql", "we.ird", "app", true)).toEqual([{ schema: "app", name: "we.ird" }])
  })

  it("the one match of a resolved object against the secret catalogs ignores case, and an extension's view is matched in any schema", () => {
    expect(secretCatalogOf("mysql", { schema: "MySQL", name: "USER" })?.name).toBe("user")
    expect(secretCatalogOf("mysql", { schema: "information_schema", name: "PROCESSLIST" })?.name).toBe("processlist")
    expect(secretCatalogOf("mysql", { schema: "app", name: "user" })).toBeUndefined()
    expect(secretCatalogOf("postgresql", { schema: "public", name: "pg_authid" })).toBeUndefined()
    expect(secretCatalogOf("postgresql", { schema: "monitoring", name: "pg_stat_statements" })?.name).toBe(
      "pg_stat_statements"
    )
  })
})

describe("other sessions' statement texts are secret catalogs in the statement gate", () => {
  const closed = { rules: [], secretCatalogs: "closed" } as const
  it.each(
    [
      ["mysql", "SELECT * FROM sys.x$processlist", "app"],
      ["mysql", "SELECT info FROM INFORMATION_SCHEMA.processlist", "app"],
      ["mysql", "SELECT * FROM `performance_schema`.`threads`", "app"],
      ["mysql", "SELECT * FROM threads", "performance_schema"],
      ["mysql", "SHOW FULL PROCESSLIST", "app"],
      ["mysql", "SHOW ENGINE INNODB STATUS", "app"],
      ["mysql", "PREPARE s FROM 'SELECT SQL_TEXT FROM performance_schema.events_statements_history'", "app"],
      ["postgresql", "SELECT query FROM pg_stat_activity", undefined],
      ["postgresql", "SELECT * FROM monitoring.pg_stat_statements", undefined]
    ] as const
  )("%s: %s is refused", (dialect, sql, database) => {
    const verdict = statementGate(sql, dialect, closed, database)
    expect(verdict.kind).toBe("refuse")
  })

  it.each(
    [
      ["mysql", "SELECT * FROM app.threads", "app"],
      ["mysql", "SELECT * FROM threads", "app"],
      ["mysql", "SELECT * FROM session", "app"]
    ] as const
  )("%s: a user table named like one (%s) is not", (dialect, sql, database) => {
    expect(statementGate(sql, dialect, closed, database).kind).toBe("pass")
  })
})
