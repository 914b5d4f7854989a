// D-73: 2,000 execute_query calls through the real MCP endpoint at 1 and at 16 concurrent clients,
// half of them abandoned by their client at a random point (before, during or after the statement). Afterwards
// no backend is left idle in a transaction, every call that was not abandoned got its row, and the next call works.
// `npm test` runs 300 calls per concurrency (the wedge of D-73 showed within 10 s of calls); `npm run test:faults`
// runs the 2,000 (DBDESK_ABORT_CALLS).
import { afterAll, beforeAll, expect, it } from "vitest"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import {
  expectHealed,
  type PgConnection,
  pgConnection,
  type PostgresMcp,
  startPostgresMcp
} from "../support/PostgresMcp.ts"
import { modernRequest } from "../support/TestServer.ts"

const CALLS = Number(process.env["DBDESK_ABORT_CALLS"] ?? 300)
/** A call not answered within this long counts as stuck (a wedged connection answers only at its 30 s deadline). */
const STUCK_MS = 15_000

/** A small seeded generator (mulberry32), so a failing run can be replayed with the seed it prints. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Tally {
  answered: number
  abandoned: number
  stuck: number
  wrong: Array<string>
}

describePostgres("execute_query calls abandoned at random points (D-73)", () => {
  let postgres: PostgresServer
  let mcp: PostgresMcp
  let connection: PgConnection

  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(
      `CREATE TABLE t (id int PRIMARY KEY, label text NOT NULL); INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'); ALTER TABLE t OWNER TO ${postgres.user}`
    )
    connection = pgConnection("Burst (PostgreSQL)", postgres.port)
    mcp = await startPostgresMcp(postgres, [connection])
  }, 120_000)

  afterAll(async () => {
    await mcp?.stop()
    await postgres?.stop()
  }, 60_000)

  const body = (id: number) =>
    JSON.stringify(
      modernRequest("tools/call", {
        name: "execute_query",
        arguments: { connection_id: connection.id, query: "SELECT * FROM t WHERE id = 1" }
      }, id)
    )

  /** One call; with `abandonAfterMs` its client drops the request that long after sending it. */
  const callOnce = async (id: number, abandonAfterMs: number | undefined, tally: Tally) => {
    const controller = new AbortController()
    let abandoned = false
    const stuck = setTimeout(() => controller.abort(), STUCK_MS)
    const abandon = abandonAfterMs === undefined ? undefined : setTimeout(() => {
      abandoned = true
      controller.abort()
    }, abandonAfterMs)
    try {
      const response = await fetch(mcp.server.url, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "execute_query"
        },
        body: body(id)
      })
      const text = await response.text()
      const rows = JSON.parse(text).result?.structuredContent?.rows
      if (JSON.stringify(rows) === JSON.stringify([[1, "one"]])) tally.answered++
      else tally.wrong.push(text.slice(0, 300))
    } catch {
      if (abandoned) tally.abandoned++
      else tally.stuck++
    } finally {
      clearTimeout(stuck)
      if (abandon !== undefined) clearTimeout(abandon)
    }
  }

  for (const clients of [1, 16]) {
    it(
      `${CALLS} calls at ${clients} concurrent client${clients === 1 ? "" : "s"}, half abandoned at random points`,
      async () => {
        const seed = Number(process.env["DBDESK_ABORT_SEED"] ?? Date.now() % 1_000_000)
        const random = seeded(seed)
        const tally: Tally = { answered: 0, abandoned: 0, stuck: 0, wrong: [] }
        let next = 0
        await Promise.all(Array.from({ length: clients }, async () => {
          while (next < CALLS && tally.stuck === 0) {
            const id = next++
            await callOnce(id, random() < 0.5 ? random() * 6 : undefined, tally)
          }
        }))
        const summary = `seed ${seed}: ${tally.answered} answered, ${tally.abandoned} abandoned, ${tally.stuck} stuck`
        expect(tally.stuck, summary).toBe(0)
        expect(tally.wrong, summary).toEqual([])
        expect(tally.answered + tally.abandoned, summary).toBe(CALLS)
        await expectHealed(mcp, postgres, connection)
      },
      120_000
    )
  }
})
