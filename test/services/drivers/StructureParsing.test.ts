// The structure view's readings that need no server: SQLite's CHECK constraints and trigger headers read from the
// stored CREATE statements, PostgreSQL's trigger type bits, and the view's note when the engine refuses a part.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { sqlStructureView } from "../../../src/http/ui/SqlViews.ts"
import { DriverError, type DatabaseDriver } from "../../../src/services/drivers/Driver.ts"
import { triggerEvent, triggerTiming } from "../../../src/services/drivers/postgres/PgStructure.ts"
import { checksOf, triggerHeader } from "../../../src/services/drivers/sqlite/SqliteStructure.ts"

describe("SQLite CHECK constraints from CREATE TABLE", () => {
  it("column and table checks, named in every quoting, with nested parentheses", () => {
    expect(checksOf(`CREATE TABLE t (a INT CHECK (a > (1 + 1)), b TEXT CONSTRAINT "b ""ok""" CHECK(length(b) < 5),
      c INT, CONSTRAINT [c range] CHECK (c BETWEEN 0 AND 9), CONSTRAINT \`Mixed\` check (c <> 3))`)).toEqual([
      { name: null, expression: "a > (1 + 1)" },
      { name: "b \"ok\"", expression: "length(b) < 5" },
      { name: "c range", expression: "c BETWEEN 0 AND 9" },
      { name: "Mixed", expression: "c <> 3" }
    ])
  })

  it("CHECK inside a string, a quoted name or a comment is not a check; a parenthesis in a string does not end one", () => {
    expect(checksOf(`CREATE TABLE t ("check" TEXT DEFAULT 'CHECK (x)', -- CHECK (y)
      /* CHECK (z) */ d TEXT CHECK (d <> ')'), [CHECK (w)] INT)`)).toEqual([{ name: null, expression: "d <> ')'" }])
  })
})

describe("SQLite trigger timing and event", () => {
  it("reads BEFORE, AFTER, INSTEAD OF and SQLite's default (BEFORE), past TEMP, IF NOT EXISTS and quoted names", () => {
    expect(triggerHeader(`CREATE TRIGGER "a ""b""" AFTER UPDATE OF x, y ON t BEGIN SELECT 1; END`)).toEqual({
      timing: "AFTER",
      event: "UPDATE OF x, y"
    })
    expect(triggerHeader("CREATE TEMP TRIGGER IF NOT EXISTS main.[on] INSTEAD OF delete ON v BEGIN SELECT 1; END"))
      .toEqual({ timing: "INSTEAD OF", event: "DELETE" })
    expect(triggerHeader("create trigger `before` insert on t begin select 1; end")).toEqual({
      timing: "BEFORE",
      event: "INSERT"
    })
  })
})

describe("PostgreSQL trigger type bits", () => {
  it("timing and events from pg_trigger.tgtype", () => {
    // ROW | BEFORE | INSERT | UPDATE
    expect([triggerTiming(1 | 2 | 4 | 16), triggerEvent(1 | 2 | 4 | 16)]).toEqual(["BEFORE", "INSERT OR UPDATE"])
    expect([triggerTiming(1 | 64 | 8), triggerEvent(1 | 64 | 8)]).toEqual(["INSTEAD OF", "DELETE"])
    expect([triggerTiming(32), triggerEvent(32)]).toEqual(["AFTER", "TRUNCATE"])
  })
})

describe("the structure view when the engine refuses a part", () => {
  it("keeps the columns and the DDL and says what could not be read", async () => {
    const driver = {
      describeTable: () =>
        Effect.succeed({
          table: "t",
          columns: [{ name: "a", data_type: "int", is_nullable: false, is_primary_key: true, is_sortable: true }],
          indexes: [],
          foreign_keys: [],
          ddl: "CREATE TABLE t (a int)"
        }),
      tableDdl: () => Effect.succeed(""),
      structureDetails: () =>
        Effect.fail(new DriverError({ message: "Table 'information_schema.CHECK_CONSTRAINTS' doesn't exist" }))
    } as unknown as DatabaseDriver
    const view = await Effect.runPromise(sqlStructureView(driver, "t"))
    expect(view.columns.map((c) => c.name)).toEqual(["a"])
    expect(view.definition).toBe("CREATE TABLE t (a int)")
    expect(view.checks).toBeUndefined()
    expect(view.notes).toEqual([
      "Checks, triggers and references could not be read: Table 'information_schema.CHECK_CONSTRAINTS' doesn't exist"
    ])
  })
})
