// The table argument of every structured tool on a superuser PostgreSQL connection: whatever spelling names a secret
// catalog (qualified, quoted, mixed case, Unicode escapes, whitespace, the search path, the schema argument), the
// table gate decides on the object the driver then reads, through the real MCP server, at every token level.
import { it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect } from "vitest"
import {
  type CorpusServer,
  expectNoSecret,
  LEVELS,
  policyRefusalOf,
  secretForms,
  startCorpusServer
} from "../support/GuardCorpus.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"

const SUPER = { user: "dbdesk_super", password: "super-pw-3c1d" }
const STATEMENT_PASSWORD = "in-flight-pw-5d07c2"

/** The objects the spellings name: [schema, name, secret, on the search path]. */
const OBJECTS: ReadonlyArray<readonly [string, string, boolean, boolean]> = [
  ["pg_catalog", "pg_authid", true, true],
  ["pg_catalog", "pg_shadow", true, true],
  ["pg_catalog", "pg_stat_activity", true, true],
  ["public", "users", false, true],
  // A user table named like the catalog: `pg_authid` alone is the catalog (pg_catalog comes first), `public.pg_authid` is this.
  ["public", "pg_authid", false, false],
  ["app", "Accounts", false, false],
  ["public", "a.b", false, false]
]

/** Which object an answer's columns come from. */
const objectOf = (columns: ReadonlyArray<string>): string =>
  columns.includes("rolpassword") ? "pg_catalog.pg_authid" : columns.includes("passwd") ?
    "pg_catalog.pg_shadow"
    : columns.includes("query") ?
    "pg_catalog.pg_stat_activity" :
    columns.includes("decoy_id") ?
    "public.pg_authid"
    : columns.includes("acct_id")
    ? "app.Accounts"
    : columns.includes("dotted_id")
    ? "public.a.b"
    : columns.includes("password_hash")
    ? "public.users"
    : `unknown ${columns.join(",")}`

const SIMPLE = /^[a-z_][a-z0-9_]*$/
const space = FastCheck.constantFrom("", " ", "  ", "\t", "\n ")
const unicodeEscaped = (text: string, mask: ReadonlyArray<boolean>) =>
  `U&"${
    [...text].map((char, i) => (mask[i % mask.length] === true
      ? `\\${char.codePointAt(0)!.toString(16).padStart(4, "0")}`
      : char === "\""
      ? "\"\""
      : char)
    ).join("")
  }"`
const quoted = (text: string) => `"${text.replace(/"/g, "\"\"")}"`

/** One part of a name in a spelling PostgreSQL reads as that part. */
const part = (text: string): FastCheck.Arbitrary<string> => {
  const spellings: Array<FastCheck.Arbitrary<string>> = [
    FastCheck.constant(quoted(text)),
    FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 8 }).map((mask) => unicodeEscaped(text, mask))
  ]
  if (SIMPLE.test(text)) {
    spellings.push(
      FastCheck.constant(text),
      FastCheck.array(FastCheck.boolean(), { minLength: text.length, maxLength: text.length }).map((upper) =>
        [...text].map((char, i) => (upper[i] === true ? char.toUpperCase() : char)).join("")
      )
    )
  }
  return FastCheck.oneof(...spellings)
}

interface Drawn {
  readonly object: string
  readonly secret: boolean
  readonly args: { readonly table: string; readonly schema?: string }
  readonly qualified: boolean
}

const spelling: FastCheck.Arbitrary<Drawn> = FastCheck.constantFrom(...OBJECTS).chain(
  ([schema, name, secret, onPath]) => {
    const object = `${schema}.${name}`
    const forms: Array<FastCheck.Arbitrary<Drawn>> = [
      FastCheck.tuple(space, part(schema), space, space, part(name), space).map(([a, s, b, c, n, d]) => ({
        object,
        secret,
        args: { table: `${a}${s}${b}.${c}${n}${d}` },
        qualified: true
      })),
      FastCheck.constant({ object, secret, args: { table: name, schema }, qualified: false })
    ]
    if (onPath) {
      forms.push(
        FastCheck.tuple(space, part(name), space).map(([a, n, b]) => ({
          object,
          secret,
          args: { table: `${a}${n}${b}` },
          qualified: false
        }))
      )
    }
    return FastCheck.oneof(...forms)
  }
)

describePostgres("table arguments on PostgreSQL (superuser connection)", () => {
  let pg: PostgresServer
  let corpus: CorpusServer
  let secrets: Array<string> = []

  beforeAll(async () => {
    pg = await startPostgres()
    await pg.sql(`CREATE ROLE ${SUPER.user} LOGIN SUPERUSER PASSWORD '${SUPER.password}'`)
    await pg.sql("CREATE ROLE victim LOGIN PASSWORD 'victim-pw-0a8e'")
    await pg.sql(`CREATE TABLE users (id int PRIMARY KEY, name text, password_hash text);
      INSERT INTO users VALUES (1, 'ann', 'not-secret');
      CREATE TABLE public.pg_authid (decoy_id int);
      CREATE SCHEMA app; CREATE TABLE app."Accounts" (acct_id int);
      CREATE TABLE public."a.b" (dotted_id int);
      CREATE VIEW v_auth AS SELECT rolname, rolpassword AS pw FROM pg_authid;
      CREATE VIEW v_activity AS SELECT a.query FROM pg_stat_get_activity(NULL) a;
      CREATE VIEW v_activity2 AS SELECT query FROM pg_stat_activity;
      CREATE FUNCTION f_activity() RETURNS SETOF text LANGUAGE sql AS $$ SELECT query FROM pg_stat_get_activity(NULL) $$;
      CREATE FUNCTION f_atomic() RETURNS SETOF text LANGUAGE sql BEGIN ATOMIC SELECT rolpassword FROM pg_authid; END;
      CREATE FUNCTION f_atomic_user() RETURNS SETOF text LANGUAGE sql BEGIN ATOMIC SELECT name FROM users; END`)
    const hashes = (await pg.sql<{ h: string }>("SELECT rolpassword AS h FROM pg_authid WHERE rolpassword IS NOT NULL"))
      .map((row) => row.h)
    expect(hashes.length).toBeGreaterThanOrEqual(2)
    const parts = hashes.flatMap((hash) => hash.split(/[$:]/).filter((piece) => piece.length >= 16))
    secrets = [...hashes, ...parts, STATEMENT_PASSWORD].flatMap(secretForms)
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
      { ...connection, id: "pg-default", name: "Superuser PG, default AI settings" },
      { ...connection, id: "pg-open", name: "Superuser PG, secret catalogs open", secretCatalogs: "open" }
    ])
  }, 120_000)

  afterAll(async () => {
    await corpus?.stop()
    await pg?.stop()
  }, 60_000)

  const TOOLS = ["browse_table", "count_rows", "describe_table", "get_table_ddl"] as const
  const ISSUED: ReadonlyArray<Record<string, string>> = [
    { table: "pg_catalog.pg_authid" },
    { table: "pg_catalog.pg_shadow" },
    { table: "PG_CATALOG.PG_AUTHID" },
    { table: " pg_catalog . \"pg_authid\" " },
    { table: "\"pg_catalog\".\"pg_shadow\"" },
    { table: "U&\"pg\\005fcatalog\".U&\"pg\\005Fauthid\"" },
    { table: "pg_authid", schema: "pg_catalog" },
    { table: "pg_catalog.pg_stat_activity" },
    { table: "pg_stat_activity" }
  ]

  describe.each(LEVELS)("%s token", (level) => {
    it.each(TOOLS.flatMap((tool) => ISSUED.map((args) => [tool, args] as const)))(
      "secret catalogs: %s %j is refused, whatever the spelling",
      async (tool, args) => {
        const answer = await corpus.call(level, tool, { connection_id: "pg-default", ...args })
        expectNoSecret(answer.text, secrets, `${tool} ${JSON.stringify(args)}`)
        expect(policyRefusalOf(answer), answer.text).toMatchObject({
          gate: "secret_catalog",
          setting: "secretCatalogs"
        })
      }
    )

    it("count_rows of a view over a secret catalog is refused: its filters would tell the hashes apart one count at a time", async () => {
      for (const filters of [[], [{ column: "pw", operator: "starts_with", value: "SCRAM-SHA-256$4096:" }]]) {
        const answer = await corpus.call(level, "count_rows", { connection_id: "pg-default", table: "v_auth", filters })
        expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "secret_catalog" })
      }
      const users = await corpus.call(level, "count_rows", {
        connection_id: "pg-default",
        table: "users",
        filters: [{ column: "name", operator: "=", value: "ann" }]
      })
      expect(users.json.result.structuredContent, users.text).toEqual({ row_count: 1, is_approximate: false })
    })

    it("the same tools still answer for a user table named like a catalog, in another schema", async () => {
      for (const tool of TOOLS) {
        const answer = await corpus.call(level, tool, { connection_id: "pg-default", table: "public.pg_authid" })
        expect(answer.json.result.isError, `${tool} ${answer.text}`).toBe(false)
      }
    })
  })

  it("other sessions' statement texts are a secret catalog: pg_stat_activity is refused in SQL and in resources", async () => {
    const sleeper = pg.sql(`SELECT pg_sleep(3) /* ALTER ROLE victim PASSWORD '${STATEMENT_PASSWORD}' */`)
    try {
      for (
        const query of [
          "SELECT query FROM pg_stat_activity",
          "SELECT * FROM pg_catalog.pg_stat_activity",
          "SELECT pg_stat_get_backend_activity(s) FROM pg_stat_get_backend_idset() s",
          "SELECT query FROM pg_stat_get_activity(NULL)",
          "SELECT * FROM v_activity",
          "SELECT * FROM v_activity2",
          "SELECT f_activity()"
        ]
      ) {
        const answer = await corpus.call("readOnly", "execute_query", { connection_id: "pg-default", query })
        expectNoSecret(answer.text, secrets, query)
        expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "secret_catalog" })
      }
      const resource = await corpus.request("readOnly", "resources/read", {
        uri: "dbdesk://connections/pg-default/tables/pg_catalog.pg_stat_activity"
      })
      expect(resource.json.error?.code, resource.text).toBe(-33007)
      const open = await corpus.call("readOnly", "execute_query", {
        connection_id: "pg-open",
        query: "SELECT query FROM pg_stat_activity"
      })
      expect(open.text).toContain(STATEMENT_PASSWORD)
    } finally {
      await sleeper
    }
  })

  it("a function with an SQL-standard body (BEGIN ATOMIC) is followed into what it reads", async () => {
    for (const level of LEVELS) {
      const secret = await corpus.call(level, "execute_query", {
        connection_id: "pg-default",
        query: "SELECT * FROM f_atomic()"
      })
      expectNoSecret(secret.text, secrets, "f_atomic")
      expect(policyRefusalOf(secret), secret.text).toMatchObject({ gate: "secret_catalog" })
      const plain = await corpus.call(level, "execute_query", {
        connection_id: "pg-default",
        query: "SELECT * FROM f_atomic_user()"
      })
      expect(plain.json.result.structuredContent?.rows, plain.text).toEqual([["ann"]])
    }
  })

  it("resources and prompts resolve a dotted table argument as the tools do", async () => {
    for (
      const uri of [
        "dbdesk://connections/pg-default/tables/pg_catalog.pg_authid",
        "dbdesk://connections/pg-default/tables/%22pg_catalog%22.pg_shadow/ddl"
      ]
    ) {
      const answer = await corpus.request("readOnly", "resources/read", { uri })
      expectNoSecret(answer.text, secrets, uri)
      expect(answer.json.error?.code, answer.text).toBe(-33007)
    }
    const prompt = await corpus.request("readOnly", "prompts/get", {
      name: "explain_table",
      arguments: { connection: "pg-default", table: "pg_catalog.pg_authid" }
    })
    expect(prompt.json.error?.code, prompt.text).toBe(-33007)
  })

  it.effect.prop(
    "the table gate's verdict is about the object browse_table then reads, in every spelling",
    [spelling],
    ([drawn]) =>
      Effect.promise(async () => {
        const open = await corpus.call("readOnly", "browse_table", {
          connection_id: "pg-open",
          ...drawn.args,
          limit: 1
        })
        expect(open.json.result.isError, `open ${JSON.stringify(drawn.args)}: ${open.text}`).toBe(false)
        const read = objectOf(open.json.result.structuredContent.columns)
        if (drawn.qualified && !drawn.args.table.includes("U&")) {
          // A qualified spelling is read as PostgreSQL reads it (to_regclass knows every spelling but Unicode escapes).
          const [oracle] = await pg.sql<{ name: string }>(
            "SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)",
            [drawn.args.table]
          )
          expect(read, JSON.stringify(drawn.args)).toBe(oracle?.name)
        }
        const closed = await corpus.call("readOnly", "browse_table", {
          connection_id: "pg-default",
          ...drawn.args,
          limit: 1
        })
        expectNoSecret(closed.text, secrets, JSON.stringify(drawn.args))
        const secret = OBJECTS.some(([schema, name, isSecret]) => isSecret && `${schema}.${name}` === read)
        if (secret) {
          expect(policyRefusalOf(closed), `${JSON.stringify(drawn.args)} reads ${read}: ${closed.text}`).toMatchObject({
            gate: "secret_catalog"
          })
        } else {expect(
            objectOf(closed.json.result.structuredContent?.columns ?? []),
            `${JSON.stringify(drawn.args)}: ${closed.text}`
          ).toBe(read)}
        expect(read, JSON.stringify(drawn.args)).toBe(drawn.object)
      }),
    { timeout: 240_000, fastCheck: { numRuns: 60 } }
  )
})
