import { Context, Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import { Connections } from "../../src/services/Connections.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { startTestServer, tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

// D-70: `dbdesk policy explain` from the support directory's files (the command runs nothing).
let home: string
let sampleId: string
const ids: Record<string, string> = {}
beforeAll(async () => {
  home = tempHome()
  const server = await startTestServer({ home, ui: false })
  const tokens = Context.get(server.context, Tokens)
  for (const access of ["readOnly", "readWrite"] as const) {
    ids[access] =
      (await Effect.runPromise(tokens.create({ name: `${access} laptop`, access, connections: "all" }))).token.id
  }
  sampleId = (await Effect.runPromise(Context.get(server.context, Connections).list))[0]!.id
  // explain runs nothing, so a PostgreSQL connection need not reach a server
  await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Warehouse",
      type: "postgresql",
      host: "127.0.0.1",
      database: "warehouse",
      user: "analyst",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow",
      maskingRules: [{ pattern: "customers.email", action: "mask" }]
    })
  )
  await Effect.runPromise(
    Context.get(server.context, Connections).add({
      name: "Lake",
      type: "postgresql",
      host: "127.0.0.1",
      database: "lake",
      user: "analyst",
      externalAccess: "readOnly",
      aiPolicy: "alwaysAllow",
      costGuard: "refuse",
      costMaxRows: 5000
    })
  )
  await server.stop()
}, 60_000)

const WRITE = "UPDATE orders SET status = 'shipped' WHERE id = 7"

describe("dbdesk policy explain", () => {
  it("a write from a readOnly token stops at the write scope with -33007; every gate before it is listed with its rule", async () => {
    const run = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      ids["readOnly"]!,
      "--connection",
      "Sample (SQLite)",
      "--sql",
      WRITE
    )
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      "execute_query on 'Sample (SQLite)' (sqlite) from token 'readOnly laptop' (readOnly), client without form elicitation:"
    )
    expect(run.stdout).toContain("  6. pass  Classifier verdict: write: UPDATE changes data")
    expect(run.stdout).toContain(
      "  8. STOP  Write scope: This statement changes data, which needs the tools:write scope"
    )
    expect(run.stdout).toContain(
      "Outcome: refused with JSON-RPC error -33007 (HTTP 403): This statement changes data, which needs the tools:write scope {\"requiredScopes\":[\"tools:read\",\"tools:write\"]}"
    )
    expect(run.stdout).not.toContain("Approval mode")
    // each gate says in plain words what it checks and where the user changes it; no document is cited
    expect(run.stdout).toContain(
      "checks that the token may change data; change it in MCP › Tokens (a Read and write or Full access token)"
    )
    expect(run.stdout).not.toMatch(/§|wire contract|product-decisions|issue \d/)
  })

  it("the same write from a readWrite token passes every gate and asks for approval; --json gives the same decision", async () => {
    const run = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readWrite laptop",
      "--connection",
      sampleId,
      "--sql",
      WRITE,
      "--elicitation",
      "--json"
    )
    expect(run.code).toBe(0)
    const explanation = JSON.parse(run.stdout)
    expect(explanation.steps.map((step: { gate: string; verdict: string }) => `${step.gate}:${step.verdict}`)).toEqual([
      "scope:pass",
      "external_access:pass",
      "ai_policy:pass",
      "allowlist:pass",
      "access_dialog:pass",
      "classifier:pass",
      "destructive_tool:pass",
      "write_scope:pass",
      "write_access:pass",
      "ai_settings:skip",
      "cost_guard:skip",
      "approval:ask"
    ])
    expect(explanation.outcome).toEqual({
      kind: "runs",
      summary: "runs on a read-write handle once the user approves the statement",
      asks: ["approval"]
    })
    expect(explanation.steps.map((step: { rule: string }) => step.rule)).toEqual([
      "C4.3-a",
      "C5-h",
      "C5-h",
      "C5-h",
      "D-29",
      "D-22",
      "D-24",
      "C5-e",
      "C5-h",
      "D-64",
      "D-95",
      "C3.1-a"
    ])
    expect(explanation.steps[11].detail).toBe(
      "a write statement: the database checks it first and a dry run is shown; asked through the elicitation form, then the app's own dialog (confirmed twice)"
    )
  })

  it("a DROP through execute_query is sent to confirm_destructive_operation, which a readWrite token lacks the scope for", async () => {
    const viaExecute = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readWrite laptop",
      "--connection",
      sampleId,
      "--sql",
      "DROP TABLE orders"
    )
    expect(viaExecute.stdout).toContain(
      "Outcome: refused with the tool error denied: this statement drops or truncates data; use confirm_destructive_operation"
    )
    const viaConfirm = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readWrite laptop",
      "--connection",
      sampleId,
      "--sql",
      "DROP TABLE orders",
      "--tool",
      "confirm_destructive_operation"
    )
    expect(viaConfirm.stdout).toContain(
      "  1. STOP  Tool scope: The tool confirm_destructive_operation needs the scope admin"
    )
  })

  it("D-65's AI settings are a gate of the decision: a read of pg_authid stops there with the setting named; a read of a masked table passes with its rules", async () => {
    const secret = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readOnly laptop",
      "--connection",
      "Warehouse",
      "--sql",
      "SELECT rolname, rolpassword FROM pg_authid"
    )
    expect(secret.code).toBe(0)
    expect(secret.stdout).toMatch(
      / {2}10\. STOP {2}AI settings \(secret catalogs, masking rules\): .*pg_catalog\.pg_authid/
    )
    expect(secret.stdout).toMatch(/Outcome: refused with the tool error denied: .*pg_authid.*secretCatalogs/)
    const masked = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readOnly laptop",
      "--connection",
      "Warehouse",
      "--sql",
      "SELECT * FROM customers"
    )
    expect(masked.stdout).toContain("  10. pass  AI settings (secret catalogs, masking rules)")
    expect(masked.stdout).toContain("1 masking rule(s) applied to the answer's columns by their origins")
    expect(masked.stdout).toContain("Outcome: runs")
  })

  it("D-95: the cost guard is a gate: its budget and what happens above it for a read, a refusal for a read it cannot estimate, nothing for SQLite", async () => {
    const read = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readOnly laptop",
      "--connection",
      "Lake",
      "--sql",
      "SELECT * FROM events"
    )
    expect(read.code).toBe(0)
    expect(read.stdout).toContain(
      "  11. pass  Cost guard: checked as it runs: the planner's estimate (EXPLAIN, which runs nothing) must stay within 5,000 estimated rows and an estimated cost of 1,000,000; above that it is refused with advice (a WHERE, an index, a LIMIT)"
    )
    expect(read.stdout).toContain(
      "checks whether a read the planner expects to be large is asked about or refused before it runs; change it in Connections › Edit › Cost guard"
    )
    expect(read.stdout).toContain(
      "Outcome: runs at once on a read-only handle, if the planner's estimate is within the cost budget (above it, the read is refused)"
    )
    const analyze = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readOnly laptop",
      "--connection",
      "Lake",
      "--sql",
      "EXPLAIN ANALYZE SELECT * FROM events"
    )
    expect(analyze.stdout).toMatch(
      / {2}11\. STOP {2}Cost guard: the planner estimates SELECT, WITH, TABLE and VALUES queries only/
    )
    expect(analyze.stdout).toContain(
      "Outcome: refused with the tool error denied: this connection's cost guard needs the planner's estimate before a read"
    )
    const sqlite = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readOnly laptop",
      "--connection",
      sampleId,
      "--sql",
      "SELECT * FROM orders"
    )
    expect(sqlite.stdout).toContain("  11. skip  Cost guard: a SQLite connection has no planner estimate to compare")
  })

  it("an unknown token or connection names the ones that exist and exits 1", async () => {
    const token = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "nobody",
      "--connection",
      sampleId,
      "--sql",
      WRITE
    )
    expect(token.code).toBe(1)
    expect(token.stderr).toMatch(/^--token: no token has the id or name "nobody"; the tokens are .*\(readOnly laptop\)/)
    const connection = await runInProcess(
      "policy",
      "explain",
      "--home",
      home,
      "--token",
      "readWrite laptop",
      "--connection",
      "nowhere",
      "--sql",
      WRITE
    )
    expect(connection.code).toBe(1)
    expect(connection.stderr).toContain(
      "--connection: no connection has the id or name \"nowhere\"; the connections are"
    )
  })
})
