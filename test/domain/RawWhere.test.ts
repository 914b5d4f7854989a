import { describe, expect, it } from "vitest"
import { rawWhereRefusal } from "../../src/domain/RawWhere.ts"

/** D-85: the grid's WHERE condition is checked as the whole statement it becomes and cannot leave its parentheses. */
describe("the filter bar's raw WHERE condition", () => {
  it("accepts plain conditions, subqueries on ordinary tables, and comment markers or semicolons inside strings", () => {
    for (const dialect of ["sqlite", "postgresql", "mysql"] as const) {
      expect(rawWhereRefusal("name LIKE 'L%' AND id < 3", dialect)).toBeUndefined()
      expect(rawWhereRefusal("note = 'a -- b; /* c */ #'", dialect)).toBeUndefined()
      expect(rawWhereRefusal("id IN (SELECT id FROM orders WHERE total > 10)", dialect)).toBeUndefined()
    }
  })

  it("refuses a condition that escapes its parentheses, comments out the rest or adds a statement", () => {
    for (const dialect of ["sqlite", "postgresql", "mysql"] as const) {
      expect(rawWhereRefusal("1=1) UNION SELECT name, note FROM items WHERE (1=1", dialect)).toMatch(/parentheses/)
      expect(rawWhereRefusal("1=1) OR (1=1", dialect)).toMatch(/parentheses/)
      expect(rawWhereRefusal("1=1; DROP TABLE items", dialect)).toMatch(/semicolon/)
      expect(rawWhereRefusal("1=1 --", dialect)).toMatch(/comments/)
      expect(rawWhereRefusal("1=1 /* )", dialect)).toMatch(/comments/)
    }
    expect(rawWhereRefusal("1=1 # )", "mysql")).toMatch(/comments/)
    // a backslash ends the string on one MySQL reading and not on the other: every reading must stay inside
    expect(rawWhereRefusal("name = 'a\\' ) OR (1=1 -- '", "mysql")).toBeDefined()
  })

  it("refuses a condition that reads a secret catalog, naming it in plain words", () => {
    expect(rawWhereRefusal("EXISTS (SELECT 1 FROM pg_authid)", "postgresql")).toMatch(
      /^This condition reads pg_catalog\.pg_authid, a secret catalog/
    )
    expect(rawWhereRefusal("name IN (SELECT passwd FROM pg_shadow)", "postgresql")).toMatch(
      /a filter may not read it\.$/
    )
    expect(rawWhereRefusal("EXISTS (SELECT 1 FROM mysql.user)", "mysql")).toMatch(/mysql\.user, a secret catalog/)
  })

  it("refuses a condition that writes or runs code", () => {
    expect(rawWhereRefusal("id = (WITH d AS (DELETE FROM items RETURNING id) SELECT 1)", "postgresql")).toMatch(
      /may only read data/
    )
    expect(rawWhereRefusal("pg_read_file('/etc/passwd') <> ''", "postgresql")).toMatch(
      /files or runs code|may only read/
    )
    expect(rawWhereRefusal("LOAD_FILE('/etc/passwd') IS NOT NULL", "mysql")).toMatch(/files or runs code|may only read/)
  })
})
