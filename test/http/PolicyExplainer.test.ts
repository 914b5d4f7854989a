import Database from "better-sqlite3"
import { Context, Effect, FastCheck } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import type { Connection } from "../../src/domain/Connection.ts"
import { tokenPrincipal } from "../../src/domain/Principal.ts"
import type { PolicyExplanation } from "../../src/domain/PolicyExplanation.ts"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import type { TokenSummary } from "../../src/domain/Token.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { ConnectionGrants } from "../../src/services/ConnectionGrants.ts"
import { Connections } from "../../src/services/Connections.ts"
import { explainStatement } from "../../src/services/policy/PolicyExplain.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"

// D-70: the explainer's outcome equals the real server's outcome, over generated tokens, connections,
// statements, tools and clients. Statements are valid for the database (the database's own check, item 5, is not
// part of the policy); the app dialog allows access and denies every statement, so nothing is ever written.
const STATEMENTS = [
  "SELECT count(*) FROM items",
  "PRAGMA table_info(items)",
  "UPDATE items SET label = label WHERE id = 1",
  "UPDATE items SET label = label",
  "DELETE FROM items WHERE id = -1",
  "INSERT INTO items (label) SELECT label FROM items WHERE id = -1",
  "DROP TABLE IF EXISTS never_created",
  "SELECT 1; SELECT 2",
  "ATTACH DATABASE 'elsewhere.db' AS elsewhere",
  "SELECT load_extension('evil')",
  "",
  "   "
]
const ACCESS: ReadonlyArray<AccessLevel> = ["readOnly", "readWrite", "fullAccess"]

let server: TestServer
let connections: ReadonlyArray<Connection>
const tokens: Array<{ readonly summary: TokenSummary; readonly value: string }> = []
const asked: Array<PendingApproval> = []
const answer = (
  approval: PendingApproval
): ApprovalDecision => (approval.kind === "connection_access" ? "approved" : "denied")

beforeAll(async () => {
  const home = tempHome()
  const path = join(home, "policy.db")
  const db = new Database(path)
  db.exec(
    "CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL); INSERT INTO items (label) VALUES ('a'), ('b')"
  )
  db.close()
  // every value of each setting, with four connections that reach the database (each starts its own SQLite process)
  const settings = [
    ["readWrite", "alwaysAllow", "writes"],
    ["readWrite", "askEachTime", "all"],
    ["readOnly", "alwaysAllow", "all"],
    ["readOnly", "askEachTime", "writes"],
    ["blocked", "alwaysAllow", "writes"],
    ["readWrite", "never", "writes"]
  ]
  const entries = settings.map(([externalAccess, aiPolicy, confirmQueries]) => ({
    id: `c-${externalAccess}-${aiPolicy}-${confirmQueries}`,
    name: `${externalAccess} ${aiPolicy} ${confirmQueries}`,
    type: "sqlite",
    path,
    externalAccess,
    aiPolicy,
    confirmQueries
  }))
  writeFileSync(join(home, "connections.json"), JSON.stringify({ version: 1, connections: entries }), { mode: 0o600 })
  server = await startTestServer({
    home,
    ui: false,
    approvalPrompt: ApprovalPrompt.scripted(answer, asked),
    settings: { limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 } }
  })
  connections = await Effect.runPromise(Context.get(server.context, Connections).list)
  const store = Context.get(server.context, Tokens)
  for (const access of ACCESS) {
    for (const allow of ["all", "some"] as const) {
      const created = await Effect.runPromise(store.create({
        name: `${access} ${allow}`,
        access,
        connections: allow === "all"
          ? "all"
          : connections.filter((_, index) => index % 2 === 0).map((connection) => connection.id)
      }))
      tokens.push({ summary: created.token, value: created.value })
    }
  }
}, 60_000)
afterAll(() => server.stop())

/** The outcome class a caller sees, and whether the access dialog was asked on the way. */
interface Observation {
  readonly outcome: string
  readonly accessDialog: boolean
}

const expected = (explanation: PolicyExplanation): Observation => ({
  outcome: explanation.outcome.kind === "refused"
    ? `refused:${explanation.outcome.code}:${explanation.outcome.reason ?? ""}`
    : explanation.outcome.asks.includes("approval")
    ? explanation.elicitation ? "asks:form" : "asks:dialog"
    : "runs",
  accessDialog: explanation.steps.some((step) => step.gate === "access_dialog" && step.verdict === "ask")
})

const observed = (json: any, dialogs: ReadonlyArray<PendingApproval>): Observation => {
  const result = json.result
  const outcome = json.error !== undefined
    ? `refused:${json.error.code}:${json.error.data?.reason ?? ""}`
    : result.resultType === "input_required"
    ? "asks:form"
    : result.isError !== true
    ? "runs"
    : result.content[0].text === "denied: the user did not approve this operation"
    ? "asks:dialog"
    : `refused:${result.structuredContent.error.code}:`
  return { outcome, accessDialog: dialogs.some((dialog) => dialog.kind === "connection_access") }
}

describe("D-70: the policy explainer", () => {
  it(
    "property: the explainer's outcome is the server's outcome, for generated tokens, connections, statements, tools and clients",
    async () => {
      const grants = Context.get(server.context, ConnectionGrants)
      const seen = new Set<string>()
      await FastCheck.assert(
        FastCheck.asyncProperty(
          FastCheck.nat(tokens.length - 1),
          FastCheck.nat(connections.length - 1),
          FastCheck.constantFrom(...STATEMENTS),
          FastCheck.constantFrom("execute_query" as const, "confirm_destructive_operation" as const),
          FastCheck.boolean(),
          async (tokenIndex, connectionIndex, sql, tool, elicitation) => {
            const token = tokens[tokenIndex]!
            const connection = connections[connectionIndex]!
            const { grant, mode } = await Effect.runPromise(grants.snapshot(tokenPrincipal(token.summary), connection))
            const explanation = explainStatement(token.summary, connection, {
              tool,
              sql,
              elicitation,
              connectionApproval: mode,
              grant,
              now: Date.now()
            })
            const before = asked.length
            const response = await postMcp(
              server.url,
              modernRequest("tools/call", {
                name: tool,
                arguments: { connection_id: connection.id, query: sql },
                _meta: { "io.modelcontextprotocol/clientCapabilities": elicitation ? { elicitation: {} } : {} }
              }),
              { authorization: `Bearer ${token.value}` }
            )
            const real = observed(response.json, asked.slice(before))
            seen.add(real.outcome)
            expect(
              real,
              `${tool} ${JSON.stringify(sql)} on ${connection.name} from ${token.summary.name}${
                elicitation ? " with elicitation" : ""
              }`
            ).toEqual(expected(explanation))
          }
        ),
        // one case each of a form, a dialog and a read that runs always comes, so the coverage check below does not rest on the draw
        {
          numRuns: 120,
          examples: ([["UPDATE items SET label = label WHERE id = 1", true], [
            "UPDATE items SET label = label WHERE id = 1",
            false
          ], ["SELECT count(*) FROM items", false]] as const).map(([sql, elicitation]) =>
            [
              tokens.findIndex((token) => token.summary.name === "readWrite all"),
              connections.findIndex((connection) => connection.name === "readWrite alwaysAllow writes"),
              sql,
              "execute_query" as const,
              elicitation
            ] as [number, number, string, "execute_query", boolean]
          )
        }
      )
      // the generated cases reached every kind of outcome
      expect([...seen].sort()).toEqual(
        expect.arrayContaining([
          "asks:dialog",
          "asks:form",
          "runs",
          "refused:-33007:",
          "refused:-33007:token_allowlist",
          "refused:denied:",
          "refused:invalid_argument:"
        ])
      )
    },
    120_000
  )
})
