import { Command, Options } from "@effect/cli"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Policy.ts")

const explain = Command.make("explain", {
  home,
  json,
  token: Options.text("token").pipe(Options.withDescription("the token's id (dbdesk token list) or its exact name")),
  connection: Options.text("connection").pipe(
    Options.withDescription("the connection's id or exact name (dbdesk connection list)")
  ),
  sql: Options.text("sql").pipe(
    Options.withDescription("the statement (on a search connection: the console text, METHOD /path and a body)")
  ),
  tool: Options.choice("tool", ["execute_query", "confirm_destructive_operation"]).pipe(
    Options.withDescription("the tool the statement is sent with"),
    Options.withDefault("execute_query" as const)
  ),
  elicitation: Options.boolean("elicitation").pipe(
    Options.withDescription("the client declares form elicitation (it gets the approval as a form)")
  )
}, lazyHandler(handlers, (m) => m.explain)).pipe(Command.withDescription(described(
  "Say what the server would do with a statement from a token: each gate in order (scope, external access, AI policy, allowlist, access dialog, classifier, destructive-tool requirement, write scope, approval) with its rule, and the outcome. Runs nothing.",
  [
    "dbdesk policy explain --token 3f2a… --connection \"Sample (SQLite)\" --sql \"UPDATE orders SET status = 'shipped' WHERE id = 7\"",
    "dbdesk policy explain --token laptop --connection Prod --sql \"DROP TABLE t\" --tool confirm_destructive_operation --json"
  ]
)))

/** `dbdesk policy explain` (D-70). */
export const policyCommand = Command.make("policy").pipe(
  Command.withDescription(described("Explain the MCP access policy for a token, a connection and a statement.", [
    "dbdesk policy explain --token ID --connection ID --sql \"…\""
  ])),
  Command.withSubcommands([explain])
)
