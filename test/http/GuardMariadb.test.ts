// D-64 on MariaDB with an account holding every privilege (root's): no account password hash
// (mysql.user.authentication_string, mysql.global_priv) and no value a masking rule protects reaches any MCP answer,
// whatever the statement's shape, at every token level. The server's general log tells whether a shape ran (stopped on
// its field origins) or never reached the server (stopped by its names or the classifier).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type CorpusServer,
  expectNoSecret,
  expectSecretShape,
  expectUntraceable,
  LEVELS,
  policyRefusalOf,
  type SecretStop,
  secretForms,
  startCorpusServer
} from "../support/GuardCorpus.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"

const ROOT = { user: "dbdesk_root", password: "root-pw-5e2a" }
const MASKED = ["hash-ann-9d2f61ac", "hash-bob-77e0b3c4"]
const HIDDEN = ["111-22-3333", "444-55-6666"]

const secretShapes: ReadonlyArray<readonly [string, string, SecretStop, string]> = [
  ["direct", "SELECT User, authentication_string FROM mysql.user", "names", ""],
  ["legacy column", "SELECT User, Password FROM mysql.user", "names", ""],
  ["alias", "SELECT u.authentication_string AS x FROM mysql.user u", "names", ""],
  ["expression", "SELECT UPPER(authentication_string) FROM mysql.user", "names", ""],
  ["cast", "SELECT CAST(authentication_string AS BINARY) FROM mysql.user", "names", ""],
  ["hex", "SELECT HEX(Password) FROM mysql.user", "names", ""],
  ["scalar subquery", "SELECT (SELECT Password FROM mysql.user LIMIT 1)", "names", ""],
  ["derived table", "SELECT x FROM (SELECT Password AS x FROM mysql.user) s", "names", ""],
  ["CTE", "WITH c AS (SELECT Password FROM mysql.user) SELECT * FROM c", "names", ""],
  ["GROUP_CONCAT", "SELECT GROUP_CONCAT(Password) FROM mysql.user", "names", ""],
  ["JSON_OBJECT", "SELECT JSON_OBJECT('p', Password) FROM mysql.user", "names", ""],
  ["JSON_ARRAYAGG", "SELECT JSON_ARRAYAGG(Password) FROM mysql.user", "names", ""],
  ["union", "SELECT User FROM mysql.user UNION SELECT Password FROM mysql.user", "names", ""],
  ["backquoted", "SELECT * FROM `mysql`.`user`", "names", ""],
  ["unqualified in mysql", "SELECT * FROM user", "names", "mysql"],
  ["global_priv", "SELECT Priv FROM mysql.global_priv", "names", ""],
  ["global_priv JSON path", "SELECT JSON_VALUE(Priv, '$.authentication_string') FROM mysql.global_priv", "names", ""],
  ["prepared text", "PREPARE s FROM 'SELECT Password FROM mysql.user'", "names", ""],
  ["SHOW GRANTS", "SHOW GRANTS", "names", ""],
  ["SHOW CREATE USER", `SHOW CREATE USER '${ROOT.user}'@'127.0.0.1'`, "names", ""],
  ["user view", "SELECT * FROM v_auth", "origins", ""],
  ["user view, expression", "SELECT CONCAT(au) FROM v_auth", "origins", ""],
  ["user view, JSON", "SELECT JSON_OBJECT('a', au) FROM v_auth", "origins", ""],
  ["view of a view", "SELECT * FROM v_auth2", "origins", ""],
  ["stored function", "SELECT f_auth()", "origins", ""],
  ["INTO OUTFILE", "SELECT Password FROM v_auth INTO OUTFILE '/tmp/x35-leak'", "classifier", ""]
]

type Outcome = "masked" | "refused"
const ruleShapes: ReadonlyArray<readonly [string, string, Outcome]> = [
  ["select star", "SELECT * FROM users", "masked"],
  ["alias", "SELECT u.password_hash AS p, u.ssn AS s FROM users u", "masked"],
  ["distinct", "SELECT DISTINCT password_hash FROM users", "masked"],
  ["expression", "SELECT UPPER(password_hash) FROM users", "refused"],
  ["JSON_OBJECT", "SELECT JSON_OBJECT('s', ssn) FROM users", "refused"],
  ["GROUP_CONCAT", "SELECT GROUP_CONCAT(password_hash) FROM users", "refused"],
  ["derived table", "SELECT x FROM (SELECT password_hash AS x FROM users) s", "refused"],
  ["derived table named like the table", "SELECT name FROM (SELECT password_hash AS name FROM users) users", "refused"],
  ["CTE", "WITH c AS (SELECT ssn FROM users) SELECT * FROM c", "refused"],
  ["union", "SELECT name FROM users UNION SELECT password_hash FROM users", "refused"],
  ["view on guarded columns", "SELECT * FROM v_guarded", "refused"]
]

describeMariadb("D-64 on MariaDB (an account with every privilege)", () => {
  let mariadb: MariadbServer
  let corpus: CorpusServer
  let secrets: Array<string> = []
  const id = "maria-root"

  beforeAll(async () => {
    mariadb = await startMariadb()
    const admin = mariadb.admin()
    await admin.query(
      `CREATE USER '${ROOT.user}'@'127.0.0.1' IDENTIFIED BY '${ROOT.password}'; GRANT ALL ON *.* TO '${ROOT.user}'@'127.0.0.1' WITH GRANT OPTION;
      CREATE USER 'victim'@'%' IDENTIFIED BY 'victim-pw-0a8e';
      CREATE USER 'viewer'@'127.0.0.1' IDENTIFIED BY 'viewer-pw-11d4'`
    )
    await admin.query(`CREATE VIEW v_auth AS SELECT User, authentication_string AS au, Password FROM mysql.user;
      CREATE VIEW v_auth2 AS SELECT au FROM v_auth;
      CREATE FUNCTION f_auth() RETURNS TEXT READS SQL DATA RETURN (SELECT GROUP_CONCAT(authentication_string) FROM mysql.user);
      CREATE TABLE users (id INT PRIMARY KEY, name TEXT, password_hash TEXT, ssn TEXT);
      INSERT INTO users VALUES (1, 'ann', '${MASKED[0]}', '${HIDDEN[0]}'), (2, 'bob', '${MASKED[1]}', '${HIDDEN[1]}');
      CREATE VIEW v_guarded AS SELECT id, password_hash AS h FROM users;
      GRANT SELECT ON ${mariadb.database}.v_auth TO 'viewer'@'127.0.0.1'`)
    const [rows] = await admin.query(
      "SELECT authentication_string AS h FROM mysql.user WHERE authentication_string <> ''"
    ) as unknown as [Array<{ h: string }>]
    const hashes = rows.map((row) => row.h)
    expect(hashes.length).toBeGreaterThanOrEqual(3)
    secrets = [...hashes, ...hashes.map((hash) => hash.replace(/^\*/, "")), ...MASKED, ...HIDDEN].flatMap(secretForms)
    const connection = {
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: mariadb.database,
      user: ROOT.user,
      password: ROOT.password,
      sslMode: "disabled",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    }
    corpus = await startCorpusServer([
      {
        ...connection,
        id,
        name: "MariaDB root",
        maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }]
      },
      { ...connection, id: "maria-default", name: "MariaDB root, default AI settings" },
      // An account that may read the view but not its definition (no SHOW VIEW): what it reads cannot be told.
      { ...connection, id: "maria-viewer", name: "MariaDB viewer", user: "viewer", password: "viewer-pw-11d4" }
    ])
  }, 180_000)

  afterAll(async () => {
    await corpus?.stop()
    await mariadb?.stop()
  }, 60_000)

  describe.each(LEVELS.flatMap((level) => [[level, "maria-root"], [level, "maria-default"]] as const))(
    "secret catalogs, %s token, connection %s",
    (level, connectionId) => {
      it.each(secretShapes)(
        "D-64: %s (%s) is stopped by its %s and no hash reaches the answer",
        async (shape, sql, stop, database) => {
          const marker = `corpus-${level}-${connectionId}-${shape.replace(/\W+/g, "-")}`
          const answer = await corpus.call(level, "execute_query", {
            connection_id: connectionId,
            query: `${sql} /* ${marker} */`,
            ...(database === "" ? {} : { database })
          })
          expectSecretShape(answer, shape, stop, secrets, level, () => mariadb.log().includes(marker))
        }
      )
    }
  )

  describe.each(LEVELS)("masking rules, %s token", (level) => {
    it.each(ruleShapes)(
      "D-65: %s (%s) is %s, and no protected value reaches the answer",
      async (shape, sql, outcome) => {
        const answer = await corpus.call(level, "execute_query", { connection_id: id, query: sql })
        expectNoSecret(answer.text, secrets, shape)
        if (outcome === "masked") {
          expect(answer.json.result.isError, answer.text).toBe(false)
          expect(answer.text).toContain("[masked: text, 17 bytes]")
          expect(answer.json.result.structuredContent.columns).not.toContain("ssn")
        } else {
          expectUntraceable(answer, shape, secrets)
        }
      }
    )
  })

  it("D-64: a view whose definition the account may not read is refused, whatever it reads", async () => {
    for (const query of ["SELECT * FROM v_auth", "SELECT CONCAT(au) FROM v_auth"]) {
      const answer = await corpus.call("readOnly", "execute_query", { connection_id: "maria-viewer", query })
      expectNoSecret(answer.text, secrets, query)
      expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "secret_catalog", setting: "secretCatalogs" })
      expect(answer.json.result.content[0].text).toContain(
        `the view ${mariadb.database}.v_auth has a definition this account may not read`
      )
    }
    const tables = await corpus.call("readOnly", "execute_query", {
      connection_id: "maria-viewer",
      query: "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_NAME = 'v_auth'"
    })
    expect(tables.json.result.structuredContent.rows, tables.text).toEqual([["v_auth"]])
  })

  it("D-64: browse_table, describe_table, get_table_ddl, count_rows and listings refuse or leave out mysql.user", async () => {
    for (
      const [tool, args] of [
        ["browse_table", { table: "user", database: "mysql" }],
        ["browse_table", { table: "v_auth" }],
        ["describe_table", { table: "global_priv", database: "mysql" }],
        ["get_table_ddl", { table: "user", database: "mysql" }],
        ["count_rows", { table: "user", database: "mysql" }]
      ] as const
    ) {
      const answer = await corpus.call("fullAccess", tool, { connection_id: "maria-default", ...args })
      expectNoSecret(answer.text, secrets, tool)
      expect(policyRefusalOf(answer), `${tool} ${answer.text}`).toMatchObject({ gate: "secret_catalog" })
    }
    const listed = await corpus.call("readOnly", "list_tables", { connection_id: "maria-default", database: "mysql" })
    expect(listed.json.result.structuredContent.tables.map((table: any) => table.name)).not.toContain("user")
    expect(listed.json.result.structuredContent.tables.map((table: any) => table.name)).not.toContain("global_priv")
    const browsed = await corpus.call("readOnly", "browse_table", { connection_id: id, table: "users" })
    expect(browsed.json.result.structuredContent.columns).toEqual(["id", "name", "password_hash"])
    expectNoSecret(browsed.text, secrets, "browse_table users")
  })
})
