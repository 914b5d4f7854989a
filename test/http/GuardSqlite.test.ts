// D-65, D-64 on SQLite: a rules-protected table (users.password_hash masked, *.ssn hidden). SQLite traces a
// result column to its table column through aliases, subqueries, CTEs and views, and reports none for an expression;
// set operations report one branch's origin only, so they are refused. No protected value reaches any MCP answer at
// any token level; the UI still shows the real values.
import Database from "better-sqlite3"
import { Context } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { unfence } from "../support/Fence.ts"
import {
  type CorpusServer,
  expectNoSecret,
  LEVELS,
  policyRefusalOf,
  secretForms,
  startCorpusServer
} from "../support/GuardCorpus.ts"
import { tempHome } from "../support/TestServer.ts"

const MASKED = ["hash-ann-9d2f61ac", "hash-bob-77e0b3c4"]
const HIDDEN = ["111-22-3333", "444-55-6666"]
const SECRETS = [...MASKED, ...HIDDEN].flatMap(secretForms)
const MARKER = "[masked: text, 17 bytes]"

type Outcome = "masked" | "kept" | "refused" | "withheld"
const shapes: ReadonlyArray<readonly [string, string, Outcome]> = [
  ["select star", "SELECT * FROM users", "masked"],
  ["alias", "SELECT u.password_hash AS p, u.ssn AS s FROM users u", "masked"],
  ["derived table", "SELECT x FROM (SELECT password_hash AS x FROM users)", "masked"],
  ["CTE", "WITH c AS (SELECT * FROM users) SELECT * FROM c", "masked"],
  ["scalar subquery", "SELECT (SELECT password_hash FROM users WHERE id = 1) AS p", "masked"],
  ["view", "SELECT * FROM v_users", "masked"],
  ["join", "SELECT o.id, u.password_hash FROM orders o JOIN users u ON u.id = o.user_id", "masked"],
  ["unguarded columns", "SELECT id, name FROM users", "kept"],
  ["other table", "SELECT * FROM orders", "kept"],
  ["expression", "SELECT upper(password_hash) FROM users", "refused"],
  ["cast", "SELECT CAST(ssn AS BLOB) FROM users", "refused"],
  ["concatenation", "SELECT name || password_hash FROM users", "refused"],
  ["group_concat", "SELECT group_concat(ssn) FROM users", "refused"],
  ["json_object", "SELECT json_object('p', password_hash) FROM users", "refused"],
  ["aggregate", "SELECT max(password_hash) FROM users", "refused"],
  ["union", "SELECT name FROM orders_names UNION SELECT password_hash FROM users", "refused"],
  [
    "union in a subquery",
    "SELECT x FROM (SELECT name AS x FROM orders_names UNION ALL SELECT ssn FROM users)",
    "refused"
  ],
  ["computed view", "SELECT * FROM v_digest", "refused"],
  ["error quoting a value", "SELECT id FROM users WHERE json_extract(password_hash, '$.a') = 1", "withheld"]
]

describe("D-65 on SQLite with a rules-protected table", () => {
  let corpus: CorpusServer
  const id = "sqlite-rules"

  beforeAll(async () => {
    const home = tempHome()
    const path = join(home, "guarded.db")
    const db = new Database(path)
    db.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password_hash TEXT, ssn TEXT);
      INSERT INTO users VALUES (1, 'ann', '${MASKED[0]}', '${HIDDEN[0]}'), (2, 'bob', '${MASKED[1]}', '${HIDDEN[1]}');
      CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, total REAL); INSERT INTO orders VALUES (10, 1, 9.5), (11, 2, 3);
      CREATE TABLE orders_names (name TEXT); INSERT INTO orders_names VALUES ('lamp');
      CREATE VIEW v_users AS SELECT id, password_hash AS ph, ssn FROM users;
      CREATE VIEW v_digest AS SELECT group_concat(password_hash) AS hashes FROM users;`)
    db.close()
    corpus = await startCorpusServer([{
      id,
      name: "Guarded SQLite",
      type: "sqlite",
      path,
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }]
    }], { ui: true })
  }, 60_000)

  afterAll(async () => {
    await corpus?.stop()
  })

  describe.each(LEVELS)("%s token", (level) => {
    it.each(shapes)("D-65: %s (%s) is %s and no protected value reaches the answer", async (shape, sql, outcome) => {
      const answer = await corpus.call(level, "execute_query", { connection_id: id, query: sql })
      expectNoSecret(answer.text, SECRETS, shape)
      const result = answer.json.result
      if (outcome === "masked" || outcome === "kept") {
        expect(result.isError, answer.text).toBe(false)
        expect(unfence(result.content[0].text).json).toEqual(result.structuredContent)
        expect(answer.text.includes(MARKER)).toBe(outcome === "masked")
        expect(result.structuredContent.columns).not.toContain("ssn")
      } else if (outcome === "refused") {
        expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "untraceable", setting: "maskingRules" })
        expect(result.content[0].text).toMatch(
          /^denied: .*masking rule "(users\.password_hash|\*\.ssn)" \((mask|hide)\) in the connection's AI settings/
        )
      } else {
        expect(result.content[0].text).toMatch(
          /^query_failed: the database stopped this statement while reading its rows .*its message is withheld/
        )
      }
    })
  })

  it("D-65: browse_table masks and hides; the hidden column is absent, aliases and SELECT * do not bypass the rules", async () => {
    const browsed = await corpus.call("readOnly", "browse_table", {
      connection_id: id,
      table: "users",
      sort: [{ column: "id", direction: "asc" }]
    })
    expect(browsed.json.result.structuredContent.columns).toEqual(["id", "name", "password_hash"])
    expect(browsed.json.result.structuredContent.rows).toEqual([[1, "ann", MARKER], [2, "bob", MARKER]])
    expectNoSecret(browsed.text, SECRETS, "browse_table")
    const view = await corpus.call("readOnly", "browse_table", { connection_id: id, table: "v_users" })
    expect(view.json.result.structuredContent.columns).toEqual(["id", "ph"])
    expectNoSecret(view.text, SECRETS, "browse_table on a view")
    // Every spelling SQLite reads as the table is the table the rules apply to.
    for (const table of ["main.users", "\"users\"", " main . [users] ", "`USERS`", "Main.\"Users\""]) {
      const spelled = await corpus.call("readOnly", "browse_table", {
        connection_id: id,
        table,
        sort: [{ column: "id", direction: "asc" }]
      })
      expect(spelled.json.result.structuredContent?.rows, `${table}: ${spelled.text}`).toEqual([[1, "ann", MARKER], [
        2,
        "bob",
        MARKER
      ]])
      expectNoSecret(spelled.text, SECRETS, `browse_table ${table}`)
    }
    for (
      const [tool, args] of [["count_rows", { table: "users" }], ["describe_table", { table: "users" }], [
        "search_schema",
        { term: "ssn" }
      ], ["explain_query", { query: "SELECT * FROM users WHERE ssn = '1'" }]] as const
    ) {
      const answer = await corpus.call("readOnly", tool, { connection_id: id, ...args })
      expect(answer.json.result.isError, answer.text).toBe(false)
      expectNoSecret(answer.text, SECRETS, tool)
    }
  })

  it("D-65: a write's returned rows follow the rules; one it cannot trace is reported without them", async () => {
    const masked = await corpus.call("readWrite", "execute_query", {
      connection_id: id,
      query: "UPDATE users SET name = name WHERE id = 1 RETURNING id, password_hash, ssn"
    })
    expect(masked.json.result.structuredContent).toMatchObject({
      columns: ["id", "password_hash"],
      rows: [[1, MARKER]]
    })
    const withheld = await corpus.call("readWrite", "execute_query", {
      connection_id: id,
      query: "UPDATE users SET name = name WHERE id = 2 RETURNING upper(ssn)"
    })
    expect(withheld.json.result.isError, withheld.text).toBe(false)
    expect(withheld.json.result.structuredContent).toMatchObject({ columns: [], rows: [], rows_affected: 1 })
    expect(withheld.json.result.structuredContent.status_message).toMatch(
      /^1 rows affected; the rows it returned are withheld: output column 1/
    )
    expectNoSecret(masked.text + withheld.text, SECRETS, "writes")
  })

  it("D-64: the UI, the user's own client, shows the real values in the grid and the console", async () => {
    const ui = Context.get(corpus.server.context, UiAddress)
    const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
    const cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
    const post = async (path: string, body: unknown) =>
      (await fetch(`${ui.origin}${path}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(body)
      })).json()
    const page = await post(`/api/connections/${id}/tables/users/rows`, {
      filters: [],
      logic: "and",
      caseSensitive: false,
      sort: [],
      offset: 0,
      limit: 10
    })
    expect(JSON.stringify(page)).toContain(MASKED[0])
    expect(JSON.stringify(page)).toContain(HIDDEN[1])
    const console = await post(`/api/connections/${id}/console`, {
      text: "SELECT group_concat(ssn) AS s FROM users",
      confirmed: false
    })
    expect(JSON.stringify(console)).toContain(`${HIDDEN[0]},${HIDDEN[1]}`)
  })

  it("D-65: the connection form edits the rules (a bad pattern refused with the form to use), and the next MCP call follows them", async () => {
    const ui = Context.get(corpus.server.context, UiAddress)
    const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
    const cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
    const send = async (method: string, path: string, body?: unknown) =>
      (await fetch(`${ui.origin}${path}`, {
        method,
        headers: { cookie, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })).json()
    const listed = (await send("GET", "/api/connections")).find((connection: any) => connection.id === id)
    expect(listed).toMatchObject({
      secretCatalogs: "closed",
      maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }]
    })
    const form = {
      name: listed.name,
      type: "sqlite",
      path: listed.path,
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes"
    }
    const refused = await send("PUT", `/api/connections/${id}`, {
      ...form,
      maskingRules: [{ pattern: "password_hash", action: "mask" }]
    })
    expect(refused.message).toContain("write table.column or schema.table.column")
    const saved = await send("PUT", `/api/connections/${id}`, {
      ...form,
      maskingRules: [{ pattern: "users.*", action: "hide" }]
    })
    expect(saved.maskingRules).toEqual([{ pattern: "users.*", action: "hide" }])
    const answer = await corpus.call("readOnly", "execute_query", { connection_id: id, query: "SELECT * FROM users" })
    expect(answer.json.result.structuredContent).toMatchObject({ columns: [], rows: [[], []] })
    await send("PUT", `/api/connections/${id}`, {
      ...form,
      maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }]
    })
  })
})
