// The table argument of every structured tool on MariaDB, and the objects whose origin an account cannot see: whatever
// spelling names a secret catalog (qualified, backquoted, whitespace, the database argument, the current database),
// the table gate decides on the object the driver then reads; a view or routine that runs with another account's
// rights, or whose body this account may not read, is refused while a guard applies; other sessions' statement texts
// are a secret catalog. Through the real MCP server, at every token level.
import { it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, describe, expect } from "vitest"
import {
  type CorpusServer,
  expectNoSecret,
  LEVELS,
  policyRefusalOf,
  secretForms,
  startCorpusServer
} from "../support/GuardCorpus.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"

const ROOT = { user: "dbdesk_root", password: "root-pw-5e2a" }
const APP = { user: "app_reader", password: "app-pw-7c41" }
const STATEMENT_PASSWORD = "in-flight-pw-93ab1e"

/** Which object an answer's columns come from. */
const objectOf = (columns: ReadonlyArray<string>): string =>
  columns.includes("authentication_string") ? "mysql.user" : columns.includes("Priv") ?
    "mysql.global_priv"
    : columns.includes("COMMAND") && columns.includes("INFO") ?
    "information_schema.PROCESSLIST" :
    columns.includes("decoy_id") ?
    "other.user"
    : columns.includes("dotted_id")
    ? "app.we.ird"
    : columns.includes("password_hash")
    ? "app.users"
    : `unknown ${columns.join(",")}`

const SIMPLE = /^[A-Za-z_][A-Za-z0-9_]*$/
const space = FastCheck.constantFrom("", " ", "  ", "\t", "\n ")
const backquoted = (text: string) => `\`${text.replace(/`/g, "``")}\``

/** One part of a name in a spelling MariaDB reads as that part (information_schema's names in any case). */
const part = (text: string, anyCase: boolean): FastCheck.Arbitrary<string> => {
  const cased = anyCase
    ? FastCheck.array(FastCheck.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) =>
      [...text].map((char, i) => (upper[i] === true ? char.toUpperCase() : char.toLowerCase())).join("")
    )
    : FastCheck.constant(text)
  return SIMPLE.test(text) ? FastCheck.oneof(cased, cased.map(backquoted)) : cased.map(backquoted)
}

interface Drawn {
  readonly object: string
  readonly secret: boolean
  readonly args: { readonly table: string; readonly database?: string }
}

/** The harness's databases: the connection's own, and another the account may read. */
const DB = "dbdesk_test"
const OTHER = "dbdesk_other"

/** The objects the spellings name: [database, name, object, secret]. */
const OBJECTS: ReadonlyArray<readonly [string, string, string, boolean]> = [
  ["mysql", "user", "mysql.user", true],
  ["mysql", "global_priv", "mysql.global_priv", true],
  ["information_schema", "PROCESSLIST", "information_schema.PROCESSLIST", true],
  [DB, "users", "app.users", false],
  // A user table named like the catalog, in another database: `dbdesk_other.user` is this one.
  [OTHER, "user", "other.user", false],
  [DB, "we.ird", "app.we.ird", false]
]

const spelling: FastCheck.Arbitrary<Drawn> = FastCheck.constantFrom(...OBJECTS).chain(
  ([database, name, object, secret]) => {
    const anyCase = database === "information_schema"
    const forms: Array<FastCheck.Arbitrary<Drawn>> = [
      FastCheck.constant({ object, secret, args: { table: name, database } }),
      FastCheck.tuple(space, part(database, anyCase), space, space, part(name, anyCase), space).map((
        [a, d, b, c, n, e]
      ) => ({ object, secret, args: { table: `${a}${d}${b}.${c}${n}${e}` } }))
    ]
    if (database === DB) {
      forms.push(
        FastCheck.tuple(space, part(name, false), space).map(([a, n, b]) => ({
          object,
          secret,
          args: { table: `${a}${n}${b}` }
        }))
      )
    }
    return FastCheck.oneof(...forms)
  }
)

describeMariadb("table arguments and unseen origins on MariaDB", () => {
  let mariadb: MariadbServer
  let corpus: CorpusServer
  let secrets: Array<string> = []

  beforeAll(async () => {
    mariadb = await startMariadb()
    const admin = mariadb.admin()
    const db = mariadb.database
    await admin.query(
      `CREATE USER '${ROOT.user}'@'127.0.0.1' IDENTIFIED BY '${ROOT.password}'; GRANT ALL ON *.* TO '${ROOT.user}'@'127.0.0.1' WITH GRANT OPTION;
      CREATE USER '${APP.user}'@'127.0.0.1' IDENTIFIED BY '${APP.password}'; GRANT SELECT, SHOW VIEW, EXECUTE ON ${db}.* TO '${APP.user}'@'127.0.0.1';
      CREATE USER 'victim'@'%' IDENTIFIED BY 'victim-pw-0a8e'`
    )
    await admin.query(
      `CREATE TABLE users (id INT PRIMARY KEY, name TEXT, password_hash TEXT); INSERT INTO users VALUES (1, 'ann', 'not-secret');
      CREATE TABLE \`we.ird\` (dotted_id INT);
      CREATE TABLE ${mariadb.otherDatabase}.user (decoy_id INT);
      CREATE SQL SECURITY DEFINER VIEW users_v AS SELECT User, authentication_string AS h FROM mysql.user;
      CREATE FUNCTION f_hashes() RETURNS TEXT SQL SECURITY DEFINER READS SQL DATA RETURN (SELECT GROUP_CONCAT(authentication_string) FROM mysql.user);
      CREATE VIEW v_auth AS SELECT User, authentication_string AS au FROM mysql.user;
      CREATE SQL SECURITY INVOKER VIEW invoker_v AS SELECT id, name FROM users;
      CREATE DEFINER = '${APP.user}'@'127.0.0.1' SQL SECURITY DEFINER VIEW own_v AS SELECT id, name FROM users`
    )
    const [rows] = await admin.query(
      "SELECT authentication_string AS h FROM mysql.user WHERE authentication_string <> ''"
    ) as unknown as [Array<{ h: string }>]
    const hashes = rows.map((row) => row.h)
    expect(hashes.length).toBeGreaterThanOrEqual(3)
    secrets = [...hashes, ...hashes.map((hash) => hash.replace(/^\*/, "")), STATEMENT_PASSWORD].flatMap(secretForms)
    expect([db, mariadb.otherDatabase]).toEqual([DB, OTHER])
    const connection = {
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: db,
      sslMode: "disabled",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    }
    corpus = await startCorpusServer([
      {
        ...connection,
        id: "maria-default",
        name: "MariaDB root, default AI settings",
        user: ROOT.user,
        password: ROOT.password
      },
      {
        ...connection,
        id: "maria-open",
        name: "MariaDB root, secret catalogs open",
        user: ROOT.user,
        password: ROOT.password,
        secretCatalogs: "open"
      },
      { ...connection, id: "maria-app", name: "MariaDB application account", user: APP.user, password: APP.password }
    ])
  }, 180_000)

  afterAll(async () => {
    await corpus?.stop()
    await mariadb?.stop()
  }, 60_000)

  const TOOLS = ["browse_table", "count_rows", "describe_table", "get_table_ddl"] as const
  const ISSUED: ReadonlyArray<Record<string, string>> = [
    { table: "mysql.user" },
    { table: "mysql.global_priv" },
    { table: "`mysql`.`user`" },
    { table: " mysql . `global_priv` " },
    { table: "user", database: "mysql" },
    { table: "information_schema.PROCESSLIST" },
    { table: "INFORMATION_SCHEMA.processlist" },
    { table: "performance_schema.threads" }
  ]

  describe.each(LEVELS)("%s token", (level) => {
    it.each(TOOLS.flatMap((tool) => ISSUED.map((args) => [tool, args] as const)))(
      "secret catalogs: %s %j is refused, whatever the spelling",
      async (tool, args) => {
        const answer = await corpus.call(level, tool, { connection_id: "maria-default", ...args })
        expectNoSecret(answer.text, secrets, `${tool} ${JSON.stringify(args)}`)
        expect(policyRefusalOf(answer), answer.text).toMatchObject({
          gate: "secret_catalog",
          setting: "secretCatalogs"
        })
      }
    )

    it("a definer's view or routine over mysql.user is refused to an account that cannot read mysql.user, saying why and what to change", async () => {
      for (
        const [tool, args] of [
          ["execute_query", { query: "SELECT * FROM users_v" }],
          ["execute_query", { query: "SELECT h FROM users_v" }],
          ["browse_table", { table: "users_v" }],
          ["execute_query", { query: "SELECT f_hashes()" }]
        ] as const
      ) {
        const answer = await corpus.call(level, tool, { connection_id: "maria-app", ...args })
        expectNoSecret(answer.text, secrets, `${tool} ${JSON.stringify(args)}`)
        expect(policyRefusalOf(answer), answer.text).toMatchObject({
          gate: "secret_catalog",
          setting: "secretCatalogs"
        })
        expect(answer.json.result.content[0].text).toMatch(
          tool === "execute_query" && args.query.includes("f_hashes")
            ? /^denied: the routine dbdesk_test\.f_hashes\(\) has a body this account may not read \(the user can let it read routine bodies, or open the connection's AI settings/
            : /^denied: the view dbdesk_test\.users_v runs with the rights of its definer [^ ]+, which may read what this account cannot see \(the user can have it redefined with SQL SECURITY INVOKER, or open the connection's AI settings/
        )
      }
    })

    it("count_rows of a view over a secret catalog is refused: its filters would tell the hashes apart one count at a time", async () => {
      for (const filters of [[], [{ column: "au", operator: "starts_with", value: "*" }]]) {
        const answer = await corpus.call(level, "count_rows", {
          connection_id: "maria-default",
          table: "v_auth",
          filters
        })
        expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "secret_catalog" })
      }
      const users = await corpus.call(level, "count_rows", {
        connection_id: "maria-default",
        table: "users",
        filters: [{ column: "name", operator: "=", value: "ann" }]
      })
      expect(users.json.result.structuredContent, users.text).toEqual({ row_count: 1, is_approximate: false })
    })

    it("a view that runs with the account's own rights still answers", async () => {
      for (const view of ["invoker_v", "own_v"]) {
        const answer = await corpus.call(level, "execute_query", {
          connection_id: "maria-app",
          query: `SELECT * FROM ${view}`
        })
        expect(answer.json.result.isError, answer.text).toBe(false)
        expect(answer.json.result.structuredContent.rows).toEqual([[1, "ann"]])
      }
    })
  })

  it("other sessions' statement texts are a secret catalog: the process lists are refused, SHOW PROCESSLIST too", async () => {
    const other = await mysql.createConnection({
      host: mariadb.host,
      port: mariadb.port,
      user: ROOT.user,
      password: ROOT.password
    })
    const sleeper = other.query(`SELECT SLEEP(3) /* ALTER USER victim IDENTIFIED BY '${STATEMENT_PASSWORD}' */`)
    try {
      const open = await corpus.call("readOnly", "execute_query", {
        connection_id: "maria-open",
        query: "SELECT INFO FROM information_schema.PROCESSLIST"
      })
      expect(open.text).toContain(STATEMENT_PASSWORD)
      for (
        const query of [
          "SELECT INFO FROM information_schema.PROCESSLIST",
          "SELECT * FROM INFORMATION_SCHEMA.`processlist`",
          "SHOW FULL PROCESSLIST",
          "SHOW PROCESSLIST",
          "SELECT PROCESSLIST_INFO FROM performance_schema.threads",
          "SELECT SQL_TEXT FROM performance_schema.events_statements_current",
          "SELECT * FROM sys.processlist",
          "SHOW ENGINE INNODB STATUS"
        ]
      ) {
        const answer = await corpus.call("fullAccess", "execute_query", { connection_id: "maria-default", query })
        expectNoSecret(answer.text, secrets, query)
        expect(policyRefusalOf(answer), `${query}: ${answer.text}`).toMatchObject({ gate: "secret_catalog" })
      }
    } finally {
      await sleeper.catch(() => undefined)
      await other.end()
    }
  })

  it("listings, search_schema, completion and resources leave the statement-text catalogs out", async () => {
    for (const database of ["information_schema", "performance_schema", "mysql"]) {
      const listed = await corpus.call("readOnly", "list_tables", { connection_id: "maria-default", database })
      const names = listed.json.result.structuredContent.tables.map((table: { name: string }) =>
        table.name.toLowerCase()
      )
      for (
        const hidden of [
          "processlist",
          "threads",
          "events_statements_current",
          "events_statements_history",
          "user",
          "global_priv",
          "general_log"
        ]
      ) expect(names, database).not.toContain(hidden)
      const found = await corpus.call("readOnly", "search_schema", {
        connection_id: "maria-default",
        database,
        term: "processlist"
      })
      expect(
        found.json.result.structuredContent.matches.filter((match: { table: string }) =>
          /processlist|threads/i.test(match.table)
        ),
        found.text
      ).toEqual([])
    }
    const open = await corpus.call("readOnly", "list_tables", {
      connection_id: "maria-open",
      database: "information_schema"
    })
    expect(open.json.result.structuredContent.tables.map((table: { name: string }) => table.name)).toContain(
      "PROCESSLIST"
    )
    const resource = await corpus.request("readOnly", "resources/read", {
      uri: "dbdesk://connections/maria-default/tables/information_schema.PROCESSLIST"
    })
    expect(resource.json.error?.code, resource.text).toBe(-33007)
  })

  it.effect.prop(
    "the table gate's verdict is about the object browse_table then reads, in every spelling",
    [spelling],
    ([drawn]) =>
      Effect.promise(async () => {
        const open = await corpus.call("readOnly", "browse_table", {
          connection_id: "maria-open",
          ...drawn.args,
          limit: 1
        })
        expect(open.json.result.isError, `open ${JSON.stringify(drawn.args)}: ${open.text}`).toBe(false)
        const read = objectOf(open.json.result.structuredContent.columns)
        expect(read, JSON.stringify(drawn.args)).toBe(drawn.object)
        const closed = await corpus.call("readOnly", "browse_table", {
          connection_id: "maria-default",
          ...drawn.args,
          limit: 1
        })
        expectNoSecret(closed.text, secrets, JSON.stringify(drawn.args))
        if (drawn.secret) {
          expect(policyRefusalOf(closed), `${JSON.stringify(drawn.args)}: ${closed.text}`).toMatchObject({
            gate: "secret_catalog"
          })
        } else {expect(
            objectOf(closed.json.result.structuredContent?.columns ?? []),
            `${JSON.stringify(drawn.args)}: ${closed.text}`
          ).toBe(read)}
      }),
    { timeout: 240_000, fastCheck: { numRuns: 60 } }
  )
})
