import { Clock, Console, Effect, Either, Option } from "effect"
import { explanationText } from "../../domain/PolicyExplanation.ts"
import { defaultSettings, Settings } from "../../domain/Settings.ts"
import { TokenFile } from "../../domain/Token.ts"
import { readFileIfExists } from "../../services/AtomicFile.ts"
import { explainStatement } from "../../services/policy/PolicyExplain.ts"
import { connectionChoices, decodeJsonFile, filesOf, findConnection, readConnections } from "../SupportFiles.ts"
import { failCommand } from "./Failure.ts"

/**
 * `dbdesk policy explain` (D-70): reads tokens.json, connections.json and settings.json (nothing else is
 * loaded or opened) and prints the statement policy's decision, the one the server's tools enact. The access dialog's
 * memory lives in the running server, so the CLI says the dialog is asked unless that server remembers a grant.
 */
export const explain = (options: {
  readonly home: Option.Option<string>
  readonly json: boolean
  readonly token: string
  readonly connection: string
  readonly sql: string
  readonly tool: "execute_query" | "confirm_destructive_operation"
  readonly elicitation: boolean
}) =>
  Effect.gen(function*() {
    const files = filesOf(Option.getOrUndefined(options.home))
    const tokensText = yield* readFileIfExists(files.tokens)
    if (tokensText === undefined) {
      return yield* failCommand(
        `there are no tokens yet (${files.tokens} does not exist); create one with dbdesk token create`
      )
    }
    const tokens = decodeJsonFile(TokenFile, tokensText)
    if (Either.isLeft(tokens)) return yield* failCommand(`${files.tokens} is not valid: ${tokens.left}`)
    const listed = tokens.right.tokens.filter((token) => !token.bridge)
    const token = listed.find((record) => record.id === options.token) ??
      listed.find((record) => record.name === options.token)
    if (token === undefined) {
      return yield* failCommand(
        `--token: no token has the id or name ${JSON.stringify(options.token)}; the tokens are ${
          listed.map((record) => `${record.id} (${record.name})`).join(", ") || "none"
        }`
      )
    }
    const connections = yield* readConnections(files.connections)
    if (connections === undefined) {
      return yield* failCommand(
        `there are no connections yet (${files.connections} does not exist); start dbdesk serve once or add one with dbdesk connection add`
      )
    }
    const connection = findConnection(connections, options.connection)
    if (connection === undefined) {
      return yield* failCommand(
        `--connection: no connection has the id or name ${JSON.stringify(options.connection)}; ${
          connectionChoices(connections)
        }`
      )
    }
    const settingsText = yield* readFileIfExists(files.settings)
    const settings = settingsText === undefined
      ? Either.right(defaultSettings())
      : decodeJsonFile(Settings, settingsText)
    if (Either.isLeft(settings)) return yield* failCommand(`${files.settings} is not valid: ${settings.left}`)
    const explanation = explainStatement(token, connection, {
      tool: options.tool,
      sql: options.sql,
      elicitation: options.elicitation,
      connectionApproval: settings.right.mcp.connectionApproval,
      grant: "unknown",
      now: yield* Clock.currentTimeMillis
    })
    yield* Console.log(options.json ? JSON.stringify(explanation, null, 2) : explanationText(explanation))
  }).pipe(
    Effect.catchTag("UnreadableFile", (error) => failCommand(error.message)),
    Effect.catchTag("FileStoreError", (error) => failCommand(error.message))
  )
