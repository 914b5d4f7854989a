import { it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Context, Effect, FastCheck } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, type TestServer } from "../support/TestServer.ts"

/** How one engine's tables are arranged and its new rows inserted (values bound, never written into SQL text). */
interface Engine {
  readonly connection: Record<string, unknown>
  /** Runs the setup statements (several, without values) on the engine. */
  readonly setup: (sql: string) => Promise<void>
  readonly insert: (id: number, value: string) => Promise<void>
  /**
   * What LIKE treats as equal, as a folding of the text: SQLite's LIKE ignores ASCII case; MariaDB's default
   * collation ignores case and accents ("é" matches "e"); PostgreSQL's LIKE compares exactly.
   */
  readonly likeFold: (text: string) => string
  readonly nul: boolean
  readonly blobType: string
  /** The bytes of "lamp" as a literal of the blob type. */
  readonly lampBytes: string
  /** A condition reading the engine's secret catalog, or undefined where it has none (SQLite). */
  readonly secretCondition?: string
  readonly stop: () => Promise<void>
}

const SEED: ReadonlyArray<string> = [
  "Lamp",
  "lamp shade",
  "50% off",
  "50 off",
  "a_b",
  "axb",
  "back\\slash",
  "it's",
  "--x",
  "/*y*/",
  "end%",
  "end"
]

/** The filter bar's operators and search against one real engine, through the UI API the grid calls (D-85). */
const filterSuite = (start: (server: () => TestServer) => Promise<Engine>) => {
  let server: TestServer
  let engine: Engine
  let origin = ""
  let cookie = ""
  let id = ""
  let nextId = 100

  beforeAll(async () => {
    server = await startTestServer({ token: "readWrite", settings: { ui: { port: 0 } } })
    engine = await start(() => server)
    await engine.setup(
      `CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(200), note VARCHAR(200), payload ${engine.blobType});
      CREATE TABLE words (id INT PRIMARY KEY, w VARCHAR(200))`
    )
    for (const [index, value] of SEED.entries()) await engine.insert(index + 1, value)
    const ui = Context.get(server.context, UiAddress)
    origin = ui.origin
    const exchange = await fetch(ui.launchUrl, { redirect: "manual" })
    cookie = exchange.headers.get("set-cookie")!.split(";")[0]!
    id = (await json("/api/connections", {
      name: "Filters",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes",
      ...engine.connection
    })).id
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await engine?.stop()
  }, 60_000)

  const json = async (path: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${origin}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { cookie, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return response.json()
  }
  const rows = (
    table: string,
    request: { filters?: ReadonlyArray<unknown>; search?: string; raw?: string; logic?: "and" | "or" }
  ) =>
    json(`/api/connections/${id}/tables/${table}/rows`, {
      filters: [],
      logic: "and",
      caseSensitive: false,
      sort: [],
      offset: 0,
      limit: 1000,
      ...request
    })
  const words = async (request: Parameters<typeof rows>[1]): Promise<Array<string>> => {
    const page = await rows("words", request)
    if (!Array.isArray(page.rows)) throw new Error(JSON.stringify(page))
    return page.rows.map((row: ReadonlyArray<unknown>) => String(row[1])).sort()
  }

  it("any-column search finds text in every column but binary ones, ignoring case, with the total counted alike", async () => {
    await engine.setup(
      `INSERT INTO items VALUES (1, 'Lamp', 'bright', NULL), (2, 'Desk', 'has a LAMP hook', NULL), (3, 'Chair', 'wood', NULL),
      (4, 'Stool', 'plain', ${engine.lampBytes})`
    )
    const found = await rows("items", { search: "lamp" })
    expect(found.rows.map((row: ReadonlyArray<unknown>) => Number(row[0]))).toEqual([1, 2])
    expect(found.total).toBe(2)
    expect((await rows("items", { search: "3" })).rows.map((row: ReadonlyArray<unknown>) => Number(row[0]))).toEqual([
      3
    ])
    expect((await rows("items", { search: "zzz" })).rows).toEqual([])
    // Match Any joins the rows among themselves; the search box narrows them further
    const either = await rows("items", {
      logic: "or",
      search: "o",
      filters: [{ column: "name", operator: "=", value: "Lamp" }, { column: "name", operator: "=", value: "Stool" }, {
        column: "name",
        operator: "=",
        value: "Desk"
      }]
    })
    expect(either.rows.map((row: ReadonlyArray<unknown>) => Number(row[0]))).toEqual([2, 4])
    expect(either.total).toBe(2)
  })

  it("LIKE and ILIKE take the user's pattern; ends with, contains and starts with match % and _ literally", async () => {
    expect(await words({ filters: [{ column: "w", operator: "like", value: "50%" }] })).toEqual(["50 off", "50% off"])
    expect(await words({ filters: [{ column: "w", operator: "ilike", value: "LAMP%" }] })).toEqual([
      "Lamp",
      "lamp shade"
    ])
    expect(await words({ filters: [{ column: "w", operator: "like", value: "a_b" }] })).toEqual(["a_b", "axb"])
    expect(await words({ filters: [{ column: "w", operator: "contains", value: "a_b" }] })).toEqual(["a_b"])
    expect(await words({ filters: [{ column: "w", operator: "starts_with", value: "50%" }] })).toEqual(["50% off"])
    expect(await words({ filters: [{ column: "w", operator: "ends_with", value: "%" }] })).toEqual(["end%"])
    expect(await words({ filters: [{ column: "w", operator: "ends_with", value: "\\slash" }] })).toEqual([
      "back\\slash"
    ])
  })

  it("a raw WHERE condition filters; one that escapes its parentheses or adds a statement is refused in plain words", async () => {
    expect(await words({ raw: "w LIKE 'end%' AND id > 0" })).toEqual(["end", "end%"])
    expect(await words({ raw: "w = '--x'", filters: [{ column: "w", operator: "contains", value: "x" }] })).toEqual([
      "--x"
    ])
    expect((await rows("words", { raw: "1=1) UNION SELECT id, w FROM words WHERE (1=1" })).message).toMatch(
      /parentheses of this condition do not match/
    )
    expect((await rows("words", { raw: "1=1; DROP TABLE words" })).message).toMatch(/comments .* or a semicolon/)
    expect((await rows("words", { raw: "1=1 --" })).message).toMatch(/comments/)
    expect(await words({ raw: "1=1" })).toHaveLength(SEED.length + (nextId - 100))
    if (engine.secretCondition !== undefined) {
      expect((await rows("words", { raw: engine.secretCondition })).message).toMatch(
        /^This condition reads .*, a secret catalog .*; a filter may not read it\.$/
      )
    }
  })

  const drawn = FastCheck.string({
    unit: FastCheck.constantFrom("a", "B", "'", "\"", "%", "_", "\\", "-", "/", "*", "#", ";", " ", "é", "\u0000"),
    minLength: 1,
    maxLength: 8
  })

  it.effect.prop(
    "any drawn value is matched literally by contains, starts with, ends with and the search box",
    [drawn],
    ([drawnValue]) =>
      Effect.promise(async () => {
        const value = engine.nul ? drawnValue : drawnValue.replaceAll("\u0000", "")
        if (value === "") return
        const rowId = nextId++
        await engine.insert(rowId, value)
        const all = await words({})
        const fold = engine.likeFold
        const expectFor = (test: (w: string) => boolean) => all.filter(test).sort()
        expect(await words({ filters: [{ column: "w", operator: "contains", value }] })).toEqual(
          expectFor((w) => fold(w).includes(fold(value)))
        )
        expect(await words({ filters: [{ column: "w", operator: "starts_with", value }] })).toEqual(
          expectFor((w) => fold(w).startsWith(fold(value)))
        )
        expect(await words({ filters: [{ column: "w", operator: "ends_with", value }] })).toEqual(
          expectFor((w) => fold(w).endsWith(fold(value)))
        )
        const searched = await rows("words", { search: value })
        const ids = new Set<string>(searched.rows.map((row: ReadonlyArray<unknown>) => String(row[1])))
        expect(ids.has(value)).toBe(true)
        const searchFold = (text: string) => fold(text.toLowerCase())
        for (const w of ids) expect(searchFold(w).includes(searchFold(value)) || /^\d+$/.test(value)).toBe(true)
      }),
    { timeout: 120_000, fastCheck: { numRuns: 30 } }
  )
}

describe("filter bar on SQLite", () => {
  filterSuite(async (server) => {
    const path = join(server().home, "filters.db")
    const db = new Database(path)
    return {
      connection: { type: "sqlite", path },
      setup: async (sql) => void db.exec(sql),
      insert: async (id, value) => void db.prepare("INSERT INTO words VALUES (?, ?)").run(id, value),
      likeFold: (text) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase()),
      nul: false,
      blobType: "BLOB",
      lampBytes: "X'6c616d70'",
      stop: async () => void db.close()
    }
  })
})

describePostgres("filter bar on PostgreSQL", () => {
  filterSuite(async () => {
    const postgres = await startPostgres()
    return {
      connection: {
        type: "postgresql",
        host: postgres.host,
        port: postgres.port,
        database: postgres.database,
        user: postgres.user,
        password: postgres.password,
        sslMode: "disable"
      },
      setup: async (sql) => {
        await postgres.sql(sql)
        await postgres.sql(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${postgres.user}`)
      },
      insert: async (id, value) => void await postgres.sql("INSERT INTO words VALUES ($1, $2)", [id, value]),
      likeFold: (text) => text,
      nul: false,
      blobType: "bytea",
      lampBytes: "'\\x6c616d70'::bytea",
      secretCondition: "EXISTS (SELECT 1 FROM pg_authid WHERE rolpassword IS NOT NULL)",
      stop: () => postgres.stop()
    }
  })
})

describeMariadb("filter bar on MariaDB", () => {
  filterSuite(async () => {
    const mariadb = await startMariadb()
    const admin = mariadb.admin()
    return {
      connection: {
        type: "mysql",
        host: mariadb.host,
        port: mariadb.port,
        database: mariadb.database,
        user: mariadb.user,
        password: mariadb.password,
        sslMode: "disabled"
      },
      setup: async (sql) => void await admin.query(sql),
      insert: async (id, value) => void await admin.query("INSERT INTO words VALUES (?, ?)", [id, value]),
      likeFold: (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase(),
      nul: true,
      blobType: "BLOB",
      lampBytes: "X'6c616d70'",
      secretCondition: "EXISTS (SELECT 1 FROM mysql.user)",
      stop: () => mariadb.stop()
    }
  })
})
