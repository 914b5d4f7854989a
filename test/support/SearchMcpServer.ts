import { Context, Effect } from "effect"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Connections } from "../../src/services/Connections.ts"
import { DriverRegistry } from "../../src/services/DriverRegistry.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { bookDocuments, books } from "../search/EngineHelpers.ts"
import { startEngine, type RunningEngine } from "./engine/index.ts"
import { startTestServer, type TestServer } from "./TestServer.ts"

export const SEARCH_ID = "search-books"
export const WRONG_KEY_ID = "search-wrong-key"
export const UNREACHABLE_ID = "search-unreachable"

export interface SearchMcpServer {
  readonly server: TestServer
  readonly engine: RunningEngine
  /** Every app dialog shown, in order. */
  readonly asked: Array<PendingApproval>
  readonly script: { answer: ApprovalDecision }
  readonly tokenFor: (access: AccessLevel) => Promise<string>
  readonly registry: DriverRegistry
  readonly stop: () => Promise<void>
}

/**
 * The real server with three saved search connections: one to the test engine (a `books` collection of 30
 * documents), one with a wrong key and one to a closed port; `extra` adds more. The app dialog is scripted.
 */
export const startSearchMcpServer = async (
  extra: ReadonlyArray<Record<string, unknown>> = []
): Promise<SearchMcpServer> => {
  const engine = await startEngine({ version: 29 })
  await engine.createCollection(books)
  await engine.importDocuments("books", bookDocuments(30))
  const asked: Array<PendingApproval> = []
  const script: { answer: ApprovalDecision } = { answer: "approved" }
  const common = { type: "search", host: engine.host, externalAccess: "readWrite", aiPolicy: "alwaysAllow" } as const
  const connections = Connections.layerMemory([
    { ...common, id: SEARCH_ID, name: "Books search", port: engine.port, apiKey: engine.apiKey },
    { ...common, id: WRONG_KEY_ID, name: "Wrong key", port: engine.port, apiKey: "not-the-key" },
    { ...common, id: UNREACHABLE_ID, name: "Nobody home", port: 9, apiKey: engine.apiKey },
    ...(extra as ReadonlyArray<any>)
  ])
  const server = await startTestServer({
    connections,
    approvalPrompt: ApprovalPrompt.scripted(() => script.answer, asked),
    settings: { limits: { requestsPerMinute: 100_000, concurrentPerCaller: 100 } }
  })
  return {
    server,
    engine,
    asked,
    script,
    tokenFor: async (access) =>
      (await Effect.runPromise(
        Context.get(server.context, Tokens).create({ name: `search ${access}`, access, connections: "all" })
      )).value,
    registry: Context.get(server.context, DriverRegistry),
    stop: async () => {
      await server.stop()
      await engine.stop()
    }
  }
}
