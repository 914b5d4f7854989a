import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import Database from "better-sqlite3"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ApprovalDecision } from "../../src/domain/Approval.ts"
import type { CuratedToolDefinition } from "../../src/domain/CuratedTool.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-69 for curated tools: a curated tool that changes data asks with the dry run of its statement, its arguments
// bound by the driver as the run binds them; a denied call changes nothing; one approved in advance does not ask.

const MOVE: CuratedToolDefinition = {
  name: "move_region",
  description: "Moves the orders of one region to another",
  connection: "DB",
  sql: "UPDATE orders SET region = :to WHERE region = :from AND id <= :upto",
  parameters: [{ name: "from", type: "text" }, { name: "to", type: "text" }, {
    name: "upto",
    type: "integer",
    default: 100
  }]
}
const SECRET_MOVE: CuratedToolDefinition = {
  ...MOVE,
  name: "move_region_secretly",
  parameters: [{ name: "from", type: "text" }, { name: "to", type: "text", secret: true }, {
    name: "upto",
    type: "integer"
  }]
}
const TOOLS: ReadonlyArray<CuratedToolDefinition> = [MOVE, {
  ...MOVE,
  name: "move_region_approved",
  approvedInAdvance: true
}, SECRET_MOVE]
/** A value that would end the literal and start another statement if it were written into the text. */
const HOSTILE = "west'; DROP TABLE orders; --"

interface Engine {
  readonly server: TestServer
  /** The orders' regions by id, read by the test's own connection. */
  readonly regions: () => Promise<ReadonlyArray<readonly [number, string]>>
}

let appAnswer: ApprovalDecision = "denied"

const startWith = (home: string, connection: Record<string, unknown>) => {
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({
      version: 1,
      connections: [{
        id: "db",
        name: "DB",
        externalAccess: "readWrite",
        aiPolicy: "alwaysAllow",
        confirmQueries: "writes",
        ...connection
      }]
    }),
    { mode: 0o600 }
  )
  writeFileSync(join(home, "tools.json"), JSON.stringify({ version: 1, tools: TOOLS }))
  return startTestServer({
    home,
    ui: false,
    token: "readWrite",
    approvalPrompt: ApprovalPrompt.scripted(() => appAnswer)
  })
}

/** The official 2.4.0 client answering each elicitation form with `approved` and keeping what it was shown. */
const elicitingClient = async (server: TestServer, approved: boolean) => {
  const client = new Client({ name: "curated-dry-run", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { elicitation: { form: {} } }
  })
  const seen: Array<{ message: string }> = []
  client.setRequestHandler("elicitation/create", async (request: any) => {
    seen.push(request.params)
    return { action: "accept", content: { approved } }
  })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${server.token}` } }
    })
  )
  return { client, seen }
}

const ORIGINAL: ReadonlyArray<readonly [number, string]> = [[1, "north"], [2, "north"], [3, "north"], [4, "south"]]

/** The shared scenario; `shownRows`: the before → after lines the engine's dry run shows (none on MySQL/MariaDB). */
const dryRunScenario = (engine: () => Engine, shownRows: ReadonlyArray<string>, note?: string) => {
  it("D-69: the form shows the dry run with the arguments bound (rows before → after); denying it changes nothing", async () => {
    const { server, regions } = engine()
    const { client, seen } = await elicitingClient(server, false)
    try {
      const result: any = await client.callTool({
        name: "move_region",
        arguments: { from: "north", to: HOSTILE, upto: 2 }
      })
      expect(result.isError).toBe(true)
      expect(result.content[0].text).toBe("denied: the user did not approve this operation")
      expect(seen).toHaveLength(1)
      const message = seen[0]!.message
      expect(message).toContain("move_region")
      expect(message).toContain("Preview (run and rolled back): will change 2 rows in orders.")
      for (const line of shownRows) expect(message).toContain(line)
      if (note !== undefined) expect(message).toContain(note)
      expect(await regions()).toEqual(ORIGINAL)
    } finally {
      await client.close()
    }
  })

  it("D-69: approved, the call changes exactly the rows its dry run counted, the hostile text stored as one value", async () => {
    const { server, regions } = engine()
    appAnswer = "approved"
    const { client, seen } = await elicitingClient(server, true)
    try {
      const result: any = await client.callTool({
        name: "move_region",
        arguments: { from: "north", to: HOSTILE, upto: 2 }
      })
      expect(result.isError, JSON.stringify(result)).toBe(false)
      expect(seen[0]!.message).toContain("will change 2 rows in orders.")
      expect(result.structuredContent.rows_affected).toBe(2)
      expect(await regions()).toEqual([[1, HOSTILE], [2, HOSTILE], [3, "north"], [4, "south"]])
      // Put back by the tool approved in advance: no form, no dialog.
      seen.length = 0
      appAnswer = "denied"
      const back: any = await client.callTool({
        name: "move_region_approved",
        arguments: { from: HOSTILE, to: "north" }
      })
      expect(back.isError, JSON.stringify(back)).toBe(false)
      expect(seen).toEqual([])
      expect(await regions()).toEqual(ORIGINAL)
    } finally {
      appAnswer = "denied"
      await client.close()
    }
  })
}

describe("curated writes on SQLite ask with their dry run", () => {
  let engine: Engine
  beforeAll(async () => {
    const home = tempHome()
    const path = join(home, "shop.db")
    const db = new Database(path)
    db.exec(
      "CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL); INSERT INTO orders VALUES (1, 'north'), (2, 'north'), (3, 'north'), (4, 'south')"
    )
    db.close()
    const server = await startWith(home, { type: "sqlite", path })
    const regions = async () => {
      const reader = new Database(path, { readonly: true })
      try {
        return (reader.prepare("SELECT id, region FROM orders ORDER BY id").raw(true).all() as Array<[number, string]>)
      } finally {
        reader.close()
      }
    }
    engine = { server, regions }
  }, 60_000)
  afterAll(async () => {
    await engine?.server.stop()
  })
  dryRunScenario(() => engine, [`• id=1: region: 'north' → '${HOSTILE}'`, `• id=2: region: 'north' → '${HOSTILE}'`])

  it("D-97: a tool with a secret parameter shows its dry run counted, never the rows that would hold the secret", async () => {
    const { client, seen } = await elicitingClient(engine.server, false)
    try {
      const result: any = await client.callTool({
        name: "move_region_secretly",
        arguments: { from: "north", to: "hunter2-secret", upto: 3 }
      })
      expect(result.content[0].text).toBe("denied: the user did not approve this operation")
      expect(seen[0]!.message).toContain("Preview (run and rolled back): will change 3 rows in orders.")
      expect(seen[0]!.message).toContain("rows are not shown: an argument of this tool is secret")
      expect(seen[0]!.message).not.toContain("hunter2")
      expect(await engine.regions()).toEqual(ORIGINAL)
    } finally {
      await client.close()
    }
  })
})

describePostgres("curated writes on PostgreSQL ask with their dry run", () => {
  let pg: PostgresServer
  let engine: Engine
  beforeAll(async () => {
    pg = await startPostgres()
    await pg.sql(
      `CREATE TABLE orders (id int PRIMARY KEY, region text NOT NULL); INSERT INTO orders VALUES (1, 'north'), (2, 'north'), (3, 'north'), (4, 'south');
      GRANT SELECT, UPDATE ON orders TO ${pg.user}`
    )
    const server = await startWith(tempHome(), {
      type: "postgresql",
      host: pg.host,
      port: pg.port,
      database: pg.database,
      user: pg.user,
      password: pg.password,
      sslMode: "disable"
    })
    const regions = async () =>
      (await pg.sql("SELECT id, region FROM orders ORDER BY id")).map((row: any) => [row.id, row.region] as const)
    engine = { server, regions }
  }, 120_000)
  afterAll(async () => {
    await engine?.server.stop()
    await pg?.stop()
  })
  dryRunScenario(() => engine, [`• id=1: region: 'north' → '${HOSTILE}'`, `• id=2: region: 'north' → '${HOSTILE}'`])
})

describeMariadb("curated writes on MariaDB ask with their dry run", () => {
  let mariadb: MariadbServer
  let engine: Engine
  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(
      "CREATE TABLE orders (id INT PRIMARY KEY, region VARCHAR(200) NOT NULL) ENGINE=InnoDB; INSERT INTO orders VALUES (1, 'north'), (2, 'north'), (3, 'north'), (4, 'south')"
    )
    const server = await startWith(tempHome(), {
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: mariadb.database,
      user: mariadb.user,
      password: mariadb.password,
      sslMode: "preferred"
    })
    const regions = async () => {
      const [rows] = await mariadb.admin().query(`SELECT id, region FROM ${mariadb.database}.orders ORDER BY id`)
      return (rows as Array<{ id: number; region: string }>).map((row) => [row.id, row.region] as const)
    }
    engine = { server, regions }
  }, 120_000)
  afterAll(async () => {
    await engine?.server.stop()
    await mariadb?.stop()
  })
  dryRunScenario(() => engine, [], "MySQL and MariaDB dry runs count the rows; they do not show them")
})
