// D-65: the pure decisions behind secret catalogs and masking rules (what the drivers and the policy explainer call).
import { describe, expect, it } from "@effect/vitest"
import { FastCheck, Schema } from "effect"
import { decideAnswer, NO_READS, projectRow } from "../../src/domain/AnswerGate.ts"
import { type GuardPolicy, maskedCell, ruleFor } from "../../src/domain/ColumnGuard.ts"
import { guardDocument } from "../../src/domain/DocumentGuard.ts"
import { guardCatalog } from "../../src/domain/GuardCatalog.ts"
import { maskingRule } from "../../src/domain/MaskingRules.ts"
import { withoutCredentialLiterals } from "../../src/domain/SecretCatalogs.ts"
import { statementGate } from "../../src/domain/StatementGate.ts"

const closed: GuardPolicy = { rules: [], secretCatalogs: "closed" }
const ruled = (pattern: string, action: "mask" | "hide" = "mask"): GuardPolicy => ({
  rules: [{ pattern, action }],
  secretCatalogs: "closed"
})
const name = FastCheck.stringMatching(/^[a-z][a-z0-9_]{0,12}$/)

describe("masking rule patterns (D-65)", () => {
  it("table.column, schema.table.column and * match case-insensitively; a hide rule wins over a mask rule", () => {
    const rules = [
      { pattern: "*.token*", action: "mask" as const },
      { pattern: "users.password_hash", action: "mask" as const },
      { pattern: "*.ssn", action: "hide" as const },
      { pattern: "app.*.api_key", action: "hide" as const }
    ]
    expect(ruleFor(rules, { schema: "public", name: "Users" }, "PASSWORD_HASH")?.pattern).toBe("users.password_hash")
    expect(ruleFor(rules, { schema: "main", name: "people" }, "ssn")?.action).toBe("hide")
    expect(ruleFor(rules, { name: "sessions" }, "token_hash")?.pattern).toBe("*.token*")
    expect(ruleFor(rules, { schema: "app", name: "keys" }, "api_key")?.action).toBe("hide")
    expect(ruleFor(rules, { schema: "public", name: "keys" }, "api_key")).toBeUndefined()
    expect(ruleFor(rules, { name: "users" }, "password")).toBeUndefined()
    expect(
      ruleFor([{ pattern: "t.c", action: "mask" }, { pattern: "*.c", action: "hide" }], { name: "t" }, "c")?.action
    ).toBe("hide")
  })

  it.prop(
    "a pattern table.column covers exactly that column; *.column covers it in every table",
    [name, name, name],
    ([table, column, other]) => {
      const exact = [{ pattern: `${table}.${column}`, action: "mask" as const }]
      expect(ruleFor(exact, { name: table }, column)).toBeDefined()
      expect(ruleFor(exact, { name: table.toUpperCase() }, column.toUpperCase())).toBeDefined()
      if (other !== column) expect(ruleFor(exact, { name: table }, other)).toBeUndefined()
      if (other !== table) expect(ruleFor(exact, { name: other }, column)).toBeUndefined()
      expect(ruleFor([{ pattern: `*.${column}`, action: "hide" }], { name: other }, column)?.action).toBe("hide")
    }
  )

  it("search patterns are collection.field with dotted nested fields", () => {
    const rules = [{ pattern: "users.address.zip", action: "mask" as const }, {
      pattern: "*.api_key",
      action: "hide" as const
    }]
    expect(ruleFor(rules, { name: "users" }, "address.zip", "search")?.action).toBe("mask")
    expect(ruleFor(rules, { name: "users" }, "address.zip", "sql")).toBeUndefined()
    expect(ruleFor(rules, { name: "keys" }, "api_key", "search")?.action).toBe("hide")
  })

  it("the connection schema refuses a pattern that names no column, with the form to use", () => {
    const decode = Schema.decodeUnknownEither(maskingRule("sql"))
    expect(decode({ pattern: "users.password_hash", action: "mask" })._tag).toBe("Right")
    expect(decode({ pattern: "a.b.c", action: "hide" })._tag).toBe("Right")
    for (const pattern of ["password", "a.b.c.d", "users.", ".x", "a b.c"]) {
      const result = decode({ pattern, action: "mask" })
      expect(result._tag, pattern).toBe("Left")
      expect(String(result._tag === "Left" ? result.left.message : ""), pattern).toContain(
        "write table.column or schema.table.column"
      )
    }
    expect(Schema.decodeUnknownEither(maskingRule("search"))({ pattern: "users.a.b.c", action: "mask" })._tag).toBe(
      "Right"
    )
    expect(decode({ pattern: "users.x", action: "blur" })._tag).toBe("Left")
  })
})

describe("the masked marker (D-65)", () => {
  it("shows the value's type and length, never a character of it", () => {
    expect(maskedCell("hash-ann-SECRET")).toBe("[masked: text, 15 bytes]")
    expect(maskedCell("é")).toBe("[masked: text, 2 bytes]")
    expect(maskedCell(123456)).toBe("[masked: number, 6 digits]")
    expect(maskedCell(BigInt("12345678901234567890"))).toBe("[masked: text, 20 bytes]")
    expect(maskedCell(true)).toBe("[masked: boolean]")
    expect(maskedCell(new Uint8Array([1, 2, 3]))).toBe("[masked: binary, 3 bytes]")
    expect(maskedCell(null)).toBeNull()
    expect(projectRow([1, "a", "secret", "b"], ["keep", "hide", "mask", "keep"], maskedCell)).toEqual([
      1,
      "[masked: text, 6 bytes]",
      "b"
    ])
  })
})

describe("the statement gate (D-64: refused before anything runs)", () => {
  const refusedPg = [
    "SELECT rolname, rolpassword FROM pg_authid",
    "select * from PG_CATALOG.PG_AUTHID",
    "SELECT * FROM \"pg_authid\"",
    "SELECT * FROM U&\"pg\\005Fauthid\"",
    "TABLE pg_shadow",
    "SELECT row_to_json(a) FROM pg_authid a",
    "SELECT string_agg(x::text, ',') FROM (SELECT a FROM pg_authid a) s",
    "SELECT 1 UNION SELECT passwd FROM pg_shadow",
    "SELECT umoptions FROM pg_user_mappings",
    "SELECT option_value FROM information_schema.user_mapping_options",
    "SELECT srvoptions FROM pg_foreign_server",
    "SELECT subconninfo FROM pg_subscription",
    "SHOW primary_conninfo",
    "SELECT table_to_xml('pg_authid', true, false, '')",
    "SELECT table_to_xml(1260, true, false, '')",
    "SELECT query_to_xml('select * from pg_a' || 'uthid', true, false, '')",
    "SELECT * FROM ts_stat('select to_tsvector(rolname) from pg_roles')",
    "SELECT $$pg_authid$$::regclass"
  ]
  it.each(refusedPg)("refuses %s on PostgreSQL, naming the setting", (sql) => {
    const verdict = statementGate(sql, "postgresql", closed)
    expect(verdict.kind).toBe("refuse")
    if (verdict.kind === "refuse") expect(verdict.refusal.message).toContain("secretCatalogs")
  })

  it.each([
    ["SELECT User, authentication_string FROM mysql.user", undefined],
    ["SELECT * FROM `mysql`.`user`", undefined],
    ["SELECT * FROM mysql . global_priv", undefined],
    ["SELECT * FROM user", "mysql"],
    ["SELECT JSON_EXTRACT(Priv, '$.authentication_string') FROM global_priv", "mysql"],
    ["PREPARE s FROM 'SELECT * FROM mysql.user'", undefined],
    ["SHOW GRANTS", undefined],
    ["SHOW CREATE USER root", undefined]
  ])("refuses %s on MySQL (current database %s)", (sql, database) => {
    expect(statementGate(sql, "mysql", closed, database).kind).toBe("refuse")
  })

  it("lets ordinary statements through, with the names they use, set operations and the names they define", () => {
    const verdict = statementGate(
      "WITH recent AS (SELECT * FROM \"Orders\") SELECT r.id FROM recent r UNION SELECT id FROM (SELECT id FROM users) u",
      "postgresql",
      closed
    )
    expect(verdict.kind).toBe("pass")
    if (verdict.kind !== "pass") return
    expect(verdict.facts.names).toEqual(expect.arrayContaining(["orders", "Orders", "recent", "users"]))
    expect(verdict.facts.compound).toBe(true)
    expect(verdict.facts.local).toEqual(expect.arrayContaining(["recent", "u"]))
    expect(statementGate("SELECT * FROM user", "mysql", closed, "shop").kind).toBe("pass")
    expect(statementGate("SELECT * FROM pg_roles", "postgresql", closed).kind).toBe("pass")
    expect(statementGate("SELECT * FROM pg_authid", "postgresql", { rules: [], secretCatalogs: "open" }).kind).toBe(
      "pass"
    )
    const rulesOnly = statementGate("SELECT query_to_xml('select 1', true, false, '')", "postgresql", {
      rules: [{ pattern: "a.b", action: "mask" }],
      secretCatalogs: "open"
    })
    expect(rulesOnly.kind === "refuse" ? rulesOnly.refusal.setting : undefined).toBe("maskingRules")
  })
})

describe("the answer gate (D-64, D-65)", () => {
  const users = {
    key: "users",
    relation: { schema: "public", name: "users" },
    kind: "table" as const,
    columns: ["id", "name", "password_hash"],
    reads: []
  }
  const clean = {
    key: "v_clean",
    relation: { schema: "public", name: "v_clean" },
    kind: "view" as const,
    columns: ["id"],
    reads: [{ key: "users", columns: ["id"] }]
  }
  const dirty = {
    key: "v_dirty",
    relation: { schema: "public", name: "v_dirty" },
    kind: "view" as const,
    columns: ["x"],
    reads: [{ key: "users" }]
  }
  const policy = ruled("users.password_hash")
  const column = (table: string, name: string) => ({
    name,
    source: { kind: "column" as const, relation: { schema: "public", name: table }, column: name }
  })

  it("masks and hides traced columns and names what it applied", () => {
    const verdict = decideAnswer(
      [column("users", "id"), column("users", "password_hash")],
      guardCatalog([users], ["users"], policy, false).reads,
      policy
    )
    expect(verdict).toEqual({
      kind: "answer",
      actions: ["keep", "mask"],
      applied: [{ action: "mask", column: "public.users.password_hash", rule: "users.password_hash" }]
    })
  })

  it("refuses a computed column, or a set operation, while a relation with rules is read; allows it otherwise", () => {
    const computed = [{ name: "row_to_json", source: { kind: "untraced" as const } }]
    const reads = guardCatalog([users], ["users"], policy, false).reads
    const refused = decideAnswer(computed, reads, policy)
    expect(refused.kind === "refuse" && refused.refusal).toMatchObject({
      gate: "untraceable",
      rule: "users.password_hash",
      setting: "maskingRules"
    })
    expect(decideAnswer([column("users", "id")], { ...reads, compound: true }, policy).kind).toBe("refuse")
    expect(decideAnswer(computed, NO_READS, policy).kind).toBe("answer")
  })

  it("a view reaches the rules through the columns it uses: a view on unguarded columns stays readable", () => {
    const catalog = guardCatalog([users, clean, dirty], ["v_clean"], policy, false)
    expect(catalog.reads.ruled).toEqual([])
    expect(catalog.reached("v_clean")).toEqual({ secret: undefined, ruled: undefined })
    expect(catalog.reached("v_dirty").ruled?.rule.pattern).toBe("users.password_hash")
    expect(guardCatalog([users, dirty], ["v_dirty"], policy, false).reads.ruled.map((entry) => entry.relation)).toEqual(
      ["public.users"]
    )
  })

  it("a secret catalog read through a view is refused whatever the columns", () => {
    const authid = {
      key: "a",
      relation: { schema: "pg_catalog", name: "pg_authid" },
      kind: "table" as const,
      columns: ["rolpassword"],
      reads: [],
      secret: { schema: "pg_catalog", name: "pg_authid", holds: "role password hashes" }
    }
    const view = {
      key: "v",
      relation: { schema: "public", name: "v" },
      kind: "view" as const,
      columns: ["x"],
      reads: [{ key: "a" }]
    }
    const verdict = decideAnswer([column("v", "x")], guardCatalog([authid, view], ["v"], closed, false).reads, closed)
    expect(verdict.kind === "refuse" && verdict.refusal).toMatchObject({
      gate: "secret_catalog",
      rule: "pg_catalog.pg_authid",
      setting: "secretCatalogs"
    })
    expect(
      decideAnswer(
        [column("v", "x")],
        guardCatalog([authid, view], ["v"], { rules: [], secretCatalogs: "open" }, false).reads,
        { rules: [], secretCatalogs: "open" }
      ).kind
    ).toBe("answer")
  })
})

describe("search documents (D-65)", () => {
  it("masks and hides nested fields, under arrays of objects too, leaving the input untouched", () => {
    const document = {
      id: "1",
      api_key: "k-SECRET",
      address: { zip: "75001", city: "Paris" },
      cards: [{ pan: "4111" }, { pan: "5500" }]
    }
    const applied: Array<any> = []
    const guarded = guardDocument(document, "users", [{ pattern: "*.api_key", action: "hide" }, {
      pattern: "users.address.zip",
      action: "mask"
    }, { pattern: "users.cards.pan", action: "mask" }], applied)
    expect(guarded).toEqual({
      id: "1",
      address: { zip: "[masked: text, 5 bytes]", city: "Paris" },
      cards: [{ pan: "[masked: text, 4 bytes]" }, { pan: "[masked: text, 4 bytes]" }]
    })
    expect(document.api_key).toBe("k-SECRET")
    expect(applied.map((entry) => entry.column)).toEqual(["users.api_key", "users.address.zip", "users.cards.pan"])
  })
})

describe("the query history shown to AI clients (D-64)", () => {
  it("keeps a statement that sets a credential, without its literals; leaves other statements whole", () => {
    expect(withoutCredentialLiterals("ALTER ROLE app PASSWORD 'n3w-Secret'")).toBe("ALTER ROLE app PASSWORD '…'")
    expect(withoutCredentialLiterals("CREATE USER MAPPING FOR me SERVER s OPTIONS (user 'u', password $p$x'y$p$)"))
      .toBe("CREATE USER MAPPING FOR me SERVER s OPTIONS (user '…', password '…')")
    expect(withoutCredentialLiterals("CREATE USER 'a'@'%' IDENTIFIED BY \"pw\\\"x\"")).toBe(
      "CREATE USER '…'@'…' IDENTIFIED BY '…'"
    )
    expect(withoutCredentialLiterals("ALTER SUBSCRIPTION s CONNECTION E'host=h password=p\\'q'")).toBe(
      "ALTER SUBSCRIPTION s CONNECTION '…'"
    )
    expect(withoutCredentialLiterals("SELECT * FROM orders WHERE note = 'x'")).toBe(
      "SELECT * FROM orders WHERE note = 'x'"
    )
  })
})
