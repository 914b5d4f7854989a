// D-64 on a superuser PostgreSQL 15: no role password hash, user-mapping or foreign-server option,
// subscription connection string, or value a masking rule protects reaches any MCP answer, whatever the statement's
// shape, at every token level. Each shape carries a marker: the server's statement log tells whether the statement ran
// (stopped on its origins) or never reached the server (stopped by its names or by the classifier).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Context } from "effect"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
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
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { unfence } from "../support/Fence.ts"

const SUPER = { user: "dbdesk_super", password: "super-pw-3c1d" }
const OPTION_SECRETS = ["srv-secret-7f3a9e", "um-secret-91bc04", "sub-secret-44de7b"]
const MASKED = ["hash-ann-9d2f61ac", "hash-bob-77e0b3c4"]
const HIDDEN = ["111-22-3333", "444-55-6666"]

const secretShapes: ReadonlyArray<readonly [string, string, SecretStop]> = [
  ["direct", "SELECT rolname, rolpassword FROM pg_authid", "names"],
  ["alias", "SELECT a.rolpassword AS x FROM pg_authid a", "names"],
  ["expression", "SELECT upper(rolpassword) FROM pg_authid", "names"],
  ["cast", "SELECT rolpassword::bytea FROM pg_authid", "names"],
  ["whole-row text", "SELECT a::text FROM pg_authid a", "names"],
  ["scalar subquery", "SELECT (SELECT rolpassword FROM pg_authid LIMIT 1)", "names"],
  ["derived table", "SELECT x FROM (SELECT rolpassword AS x FROM pg_authid) s", "names"],
  ["CTE", "WITH c AS (SELECT rolpassword FROM pg_authid) SELECT * FROM c", "names"],
  [
    "lateral",
    "SELECT l.p FROM pg_roles r, LATERAL (SELECT rolpassword p FROM pg_authid a WHERE a.oid = r.oid) l",
    "names"
  ],
  ["row_to_json", "SELECT row_to_json(a) FROM pg_authid a", "names"],
  ["to_jsonb", "SELECT to_jsonb(a) FROM pg_authid a", "names"],
  ["string_agg", "SELECT string_agg(rolpassword, ',') FROM pg_authid", "names"],
  ["union", "SELECT rolname FROM pg_roles UNION SELECT rolpassword FROM pg_authid", "names"],
  ["except", "SELECT rolpassword FROM pg_authid EXCEPT SELECT 'x'", "names"],
  ["quoted name", "SELECT * FROM pg_catalog.\"pg_authid\"", "names"],
  ["unicode-escaped name", "SELECT * FROM U&\"pg\\005Fauthid\"", "names"],
  ["system view", "SELECT usename, passwd FROM pg_shadow", "names"],
  ["table keyword", "TABLE pg_shadow", "names"],
  ["user view", "SELECT * FROM v_auth", "origins"],
  ["user view, one column", "SELECT pw FROM v_auth", "origins"],
  ["user view, row_to_json", "SELECT row_to_json(v) FROM v_auth v", "origins"],
  ["user view, string_agg", "SELECT string_agg(pw, ',') FROM v_auth", "origins"],
  ["view of a view", "SELECT * FROM v_auth2", "origins"],
  ["materialized view", "SELECT * FROM mv_auth", "origins"],
  ["SQL function", "SELECT f_auth()", "origins"],
  ["set-returning function", "SELECT * FROM f_auth()", "origins"],
  ["PL/pgSQL with dynamic SQL", "SELECT * FROM f_dynamic()", "origins"],
  ["query_to_xml", "SELECT query_to_xml('select rolpassword from pg_a' || 'uthid', true, false, '')", "names"],
  ["table_to_xml by OID", "SELECT table_to_xml(1260, true, false, '')", "names"],
  ["regclass literal", "SELECT 'pg_authid'::regclass", "names"],
  ["user mappings", "SELECT * FROM pg_user_mappings", "names"],
  ["user mapping options", "SELECT option_value FROM information_schema.user_mapping_options", "names"],
  ["user mapping catalog", "SELECT umoptions FROM pg_user_mapping", "names"],
  ["server options", "SELECT srvname, srvoptions FROM pg_foreign_server", "names"],
  ["server options view", "SELECT * FROM information_schema.foreign_server_options", "names"],
  ["options unnested", "SELECT pg_options_to_table(umoptions) FROM pg_user_mapping", "names"],
  ["subscription", "SELECT subname, subconninfo FROM pg_subscription", "names"],
  ["COPY query", "COPY (SELECT rolpassword FROM pg_authid) TO STDOUT", "classifier"],
  ["COPY view", "COPY v_auth TO STDOUT", "classifier"]
]

type Outcome = "masked" | "refused" | "classifier" | "withheld"
const ruleShapes: ReadonlyArray<readonly [string, string, Outcome]> = [
  ["select star", "SELECT * FROM users", "masked"],
  ["alias", "SELECT u.password_hash AS p, u.ssn AS s FROM users u", "masked"],
  ["derived table", "SELECT x FROM (SELECT password_hash AS x FROM users) s", "masked"],
  ["CTE", "WITH c AS (SELECT * FROM users) SELECT * FROM c", "masked"],
  ["distinct", "SELECT DISTINCT password_hash FROM users", "masked"],
  ["view on unguarded columns", "SELECT * FROM v_clean", "masked"],
  ["expression", "SELECT upper(password_hash) FROM users", "refused"],
  ["cast", "SELECT password_hash::bytea FROM users", "refused"],
  ["concatenation", "SELECT name || password_hash FROM users", "refused"],
  ["scalar subquery", "SELECT (SELECT ssn FROM users LIMIT 1)", "refused"],
  ["row_to_json", "SELECT row_to_json(u) FROM users u", "refused"],
  ["to_jsonb", "SELECT to_jsonb(u) FROM users u", "refused"],
  ["string_agg", "SELECT string_agg(ssn, ',') FROM users", "refused"],
  ["union", "SELECT name FROM users UNION SELECT password_hash FROM users", "refused"],
  ["view on guarded columns", "SELECT * FROM v_guarded", "refused"],
  ["view, aggregate", "SELECT string_agg(h, ',') FROM v_guarded", "refused"],
  ["error quoting a value", "SELECT id FROM users WHERE password_hash::int = 1", "withheld"],
  ["COPY", "COPY users TO STDOUT", "classifier"]
]

describePostgres("D-64 on PostgreSQL (superuser connection)", () => {
  let pg: PostgresServer
  let corpus: CorpusServer
  let secrets: Array<string> = []
  const id = "pg-super"

  beforeAll(async () => {
    pg = await startPostgres()
    await pg.sql(`CREATE ROLE ${SUPER.user} LOGIN SUPERUSER PASSWORD '${SUPER.password}'`)
    await pg.sql("CREATE ROLE victim LOGIN PASSWORD 'victim-pw-0a8e'")
    await pg.sql(
      `CREATE FOREIGN DATA WRAPPER corpus_fdw; CREATE SERVER corpus_srv FOREIGN DATA WRAPPER corpus_fdw OPTIONS (host 'remote.example', password '${
        OPTION_SECRETS[0]
      }');
      CREATE USER MAPPING FOR ${SUPER.user} SERVER corpus_srv OPTIONS (user 'remote', password '${OPTION_SECRETS[1]}')`
    )
    await pg.sql(
      `CREATE SUBSCRIPTION corpus_sub CONNECTION 'host=127.0.0.1 dbname=none password=${
        OPTION_SECRETS[2]
      }' PUBLICATION corpus_pub WITH (connect = false)`
    )
    await pg.sql(`CREATE VIEW v_auth AS SELECT rolname, rolpassword AS pw FROM pg_authid;
      CREATE VIEW v_auth2 AS SELECT pw AS p FROM v_auth;
      CREATE MATERIALIZED VIEW mv_auth AS SELECT rolpassword FROM pg_authid;
      CREATE FUNCTION f_auth() RETURNS SETOF text LANGUAGE sql AS $$ SELECT rolpassword FROM pg_authid $$;
      CREATE FUNCTION f_dynamic() RETURNS SETOF text LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY EXECUTE 'SELECT rolpassword FROM pg_a' || 'uthid'; END $$;
      CREATE TABLE users (id int PRIMARY KEY, name text, password_hash text, ssn text);
      INSERT INTO users VALUES (1, 'ann', '${MASKED[0]}', '${HIDDEN[0]}'), (2, 'bob', '${MASKED[1]}', '${HIDDEN[1]}');
      CREATE VIEW v_clean AS SELECT id, name FROM users;
      CREATE VIEW v_guarded AS SELECT id, password_hash AS h FROM users`)
    const hashes = (await pg.sql<{ h: string }>("SELECT rolpassword AS h FROM pg_authid WHERE rolpassword IS NOT NULL"))
      .map((row) => row.h)
    expect(hashes.length).toBeGreaterThanOrEqual(4)
    // A SCRAM hash is SCRAM-SHA-256$iterations:salt$storedkey:serverkey: each key and the salt count on their own.
    const parts = hashes.flatMap((hash) => hash.split(/[$:]/).filter((part) => part.length >= 16))
    secrets = [...hashes, ...parts, ...OPTION_SECRETS, ...MASKED, ...HIDDEN].flatMap(secretForms)
    const connection = {
      type: "postgresql",
      host: pg.host,
      port: pg.port,
      database: pg.database,
      user: SUPER.user,
      password: SUPER.password,
      sslMode: "disable",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    }
    corpus = await startCorpusServer([
      {
        ...connection,
        id,
        name: "Superuser PG",
        maskingRules: [{ pattern: "users.password_hash", action: "mask" }, { pattern: "*.ssn", action: "hide" }]
      },
      // The same role with the default AI settings (secret catalogs closed, no rules): PostgreSQL's probe path.
      { ...connection, id: "pg-default", name: "Superuser PG, default AI settings" }
    ], { ui: true })
  }, 120_000)

  afterAll(async () => {
    await corpus?.stop()
    await pg?.stop()
  }, 60_000)

  describe.each(LEVELS.flatMap((level) => [[level, "pg-super"], [level, "pg-default"]] as const))(
    "secret catalogs, %s token, connection %s",
    (level, connectionId) => {
      it.each(secretShapes)(
        "D-64: %s (%s) is stopped by its %s and no secret reaches the answer",
        async (shape, sql, stop) => {
          const marker = `corpus-${level}-${connectionId}-${shape.replace(/\W+/g, "-")}`
          const answer = await corpus.call(level, "execute_query", {
            connection_id: connectionId,
            query: `${sql} -- ${marker}`
          })
          expectSecretShape(answer, shape, stop, secrets, level, () => pg.log().includes(marker))
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
          expect(JSON.stringify(answer.json.result.structuredContent.rows)).not.toMatch(/"\d{3}-\d{2}-\d{4}"/)
          expect(unfence(answer.json.result.content[0].text).json).toEqual(answer.json.result.structuredContent)
          if (/password_hash|\*|x FROM/.test(sql) && !/v_clean/.test(sql)) {
            expect(answer.text).toContain("[masked: text, 17 bytes]")
          }
          expect(answer.json.result.structuredContent.columns).not.toContain("ssn")
        } else if (outcome === "refused") {
          expectUntraceable(answer, shape, secrets)
          expect(answer.json.result.content[0].text).toMatch(/masking rule "(users\.password_hash|\*\.ssn)"/)
        } else if (outcome === "withheld") {
          expect(answer.json.result.content[0].text).toMatch(
            /^query_failed: the database stopped this statement while reading its rows \(error code 22P02\); its message is withheld/
          )
        } else {
          expect(answer.json.result.content[0].text).toMatch(/^denied: this statement reads or writes files/)
        }
      }
    )
  })

  it("D-64: every other MCP path refuses the secret catalogs: tools, resources, prompts, listings", async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ["browse_table", { table: "pg_authid" }],
      ["browse_table", { table: "pg_shadow", schema: "pg_catalog" }],
      ["browse_table", { table: "v_auth" }],
      ["describe_table", { table: "pg_authid" }],
      ["get_table_ddl", { table: "pg_user_mapping" }],
      ["count_rows", { table: "pg_subscription" }],
      ["explain_query", { query: "SELECT rolpassword FROM pg_authid", analyze: true }]
    ]
    for (const [tool, args] of calls) {
      const answer = await corpus.call("fullAccess", tool, { connection_id: id, ...args })
      expectNoSecret(answer.text, secrets, tool)
      expect(policyRefusalOf(answer), `${tool} ${answer.text}`).toMatchObject({ gate: "secret_catalog" })
    }
    for (
      const [tool, args] of [["search_schema", { term: "pass" }], ["list_tables", {}], ["browse_table", {
        table: "users"
      }]] as const
    ) {
      const answer = await corpus.call("readOnly", tool, { connection_id: id, ...args })
      expect(answer.json.result.isError, answer.text).toBe(false)
      expectNoSecret(answer.text, secrets, tool)
    }
    for (
      const uri of [`dbdesk://connections/${id}/tables/pg_authid`, `dbdesk://connections/${id}/tables/pg_shadow/ddl`]
    ) {
      const answer = await corpus.request("readOnly", "resources/read", { uri })
      expect(answer.json.error?.code, answer.text).toBe(-33007)
      expect(answer.json.error.data).toMatchObject({ reason: "secret_catalog", setting: "secretCatalogs" })
    }
    for (const [name, table] of [["explain_table", "pg_authid"], ["data_quality_audit", "pg_shadow"]]) {
      const answer = await corpus.request("readOnly", "prompts/get", { name, arguments: { connection: id, table } })
      expect(answer.json.error?.code, answer.text).toBe(-33007)
    }
    const completion = await corpus.request("readOnly", "completion/complete", {
      ref: { type: "ref/resource", uri: "dbdesk://connections/{connection_id}/tables/{table}" },
      argument: { name: "table", value: "pg_" },
      context: { arguments: { connection_id: id } }
    })
    expect(completion.json.result.completion.values).toEqual([])
    for (const resource of [`dbdesk://connections/${id}/schema`, `dbdesk://connections/${id}/tables/users`]) {
      expectNoSecret((await corpus.request("readOnly", "resources/read", { uri: resource })).text, secrets, resource)
    }
  })

  it("D-67: the activity log names the rule that applied, never a value", async () => {
    await corpus.call("readOnly", "execute_query", { connection_id: id, query: "SELECT * FROM users WHERE id = 1" })
    await corpus.call("readOnly", "execute_query", { connection_id: id, query: "SELECT * FROM v_auth" })
    const details = await corpus.activityDetails()
    expect(details).toContainEqual(
      expect.stringMatching(
        /^execute_query policy: masked public\.users\.password_hash \(rule users\.password_hash\); hidden public\.users\.ssn \(rule \*\.ssn\)$/
      )
    )
    expect(details).toContainEqual(
      "execute_query code=denied; gate=secret_catalog; rule=pg_catalog.pg_authid; setting=secretCatalogs"
    )
    expect(details).toContainEqual(
      expect.stringMatching(
        /^dbdesk:\/\/connections\/pg-super\/tables\/pg_authid code=-33007; gate=secret_catalog; rule=pg_catalog\.pg_authid/
      )
    )
    expectNoSecret(details.join("\n"), secrets, "activity log")
  })

  it("D-64: the UI, the user's own client, still shows the real values", async () => {
    const ui = Context.get(corpus.server.context, UiAddress)
    const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
    const cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
    const post = async (path: string, body: unknown) =>
      (await fetch(`${ui.origin}${path}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(body)
      })).json()
    const console = await post(`/api/connections/${id}/console`, {
      text: "SELECT rolpassword FROM pg_authid WHERE rolname = 'victim'",
      confirmed: false
    })
    expect(JSON.stringify(console)).toMatch(/SCRAM-SHA-256\$4096:/)
    const page = await post(`/api/connections/${id}/tables/users/rows`, {
      filters: [],
      logic: "and",
      caseSensitive: false,
      sort: [],
      offset: 0,
      limit: 10
    })
    expect(JSON.stringify(page)).toContain(MASKED[0])
    expect(JSON.stringify(page)).toContain(HIDDEN[0])
    // A password the user sets in the UI console stays out of the history resource AI clients read.
    const changed = await post(`/api/connections/${id}/console`, {
      text: "ALTER ROLE victim PASSWORD 'typed-in-console-6b0c'",
      confirmed: true
    })
    expect(JSON.stringify(changed)).not.toMatch(/error/i)
    const history = await corpus.request("readOnly", "resources/read", { uri: `dbdesk://connections/${id}/history` })
    expect(history.text).toContain("ALTER ROLE victim PASSWORD '…'")
    expect(history.text).not.toContain("typed-in-console-6b0c")
  })
})
