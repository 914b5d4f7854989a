/**
 * Two builds side by side, round by round (D-63): `node --import tsx bench/ab.ts [rounds]` with `AB_A` and `AB_B`
 * each `"<node flags>|<checkout root>"` (either part may be empty; an empty root is this checkout's build). Both serve
 * one throwaway PostgreSQL at once and are measured alternately in short rounds, so the drift of a shared machine falls
 * on both alike; prints each side's median req/s, the median of the per-round ratios B/A with their range, and each side's median p99.
 * Not part of `npm run bench`: a tool for telling a 10–20 % change from noise before committing it.
 */
import { measure } from "./load.ts"
import { httpRequest } from "./peers/servers.ts"
import { startDbdesk } from "./servers/dbdesk.ts"
import { startPostgres } from "../test/support/PostgresHarness.ts"

const rounds = Number(process.argv[2] ?? 8)
const postgres = await startPostgres({ logStatements: false })
await postgres.sql(
  `CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL); INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 1000) g; GRANT SELECT ON items TO ${postgres.user}`
)
const connections = [{
  id: "pg",
  name: "PostgreSQL",
  type: "postgresql",
  host: postgres.host,
  port: postgres.port,
  database: postgres.database,
  user: postgres.user,
  password: postgres.password,
  sslMode: "disable",
  aiPolicy: "alwaysAllow"
}]
const start = async (spec: string) => {
  const [flags = "", root = ""] = spec.split("|")
  process.env["DBDESK_BENCH_NODE_FLAGS"] = flags
  return startDbdesk({ connections, ...(root === "" ? {} : { root }) })
}
const sides = { A: await start(process.env["AB_A"] ?? ""), B: await start(process.env["AB_B"] ?? "") }
const sql = {
  method: "tools/call",
  name: "execute_query",
  arguments: { connection_id: "pg", query: "SELECT * FROM items WHERE id = 1" }
}
const cases = [
  { name: "sql c=1", concurrency: 1, spec: sql },
  { name: "sql c=16", concurrency: 16, spec: sql },
  { name: "list c=1", concurrency: 1, spec: { method: "tools/list" } },
  { name: "list c=16", concurrency: 16, spec: { method: "tools/list" } }
]
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
try {
  for (const side of Object.values(sides)) {
    for (const c of cases) await measure(side.url, httpRequest({ ...c.spec, id: 1 }, side.token), c.concurrency, 600)
  }
  for (const c of cases) {
    const rates = { A: [] as Array<number>, B: [] as Array<number> }
    const p99s = { A: [] as Array<number>, B: [] as Array<number> }
    for (let round = 0; round < rounds; round++) {
      for (const name of ["A", "B"] as const) {
        const stats = await measure(
          sides[name].url,
          httpRequest({ ...c.spec, id: 1 }, sides[name].token),
          c.concurrency,
          700
        )
        rates[name].push(stats.rps)
        p99s[name].push(stats.p99Ms)
      }
    }
    const ratios = rates.A.map((a, i) => rates.B[i]! / a)
    console.log(
      `${c.name.padEnd(10)} A ${median(rates.A).toFixed(0).padStart(6)}  B ${
        median(rates.B).toFixed(0).padStart(6)
      }  B/A ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${
        Math.max(...ratios).toFixed(2)
      })  p99 ms A ${median(p99s.A).toFixed(2)} B ${median(p99s.B).toFixed(2)}`
    )
  }
} finally {
  await sides.A.stop()
  await sides.B.stop()
  await postgres.stop()
}
