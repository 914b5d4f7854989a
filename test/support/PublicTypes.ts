import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript"

/**
 * D-77 and acceptance: a TypeScript consumer of the installed package, written against the public entry
 * points only (no path under dist/ or src/), compiled with strict, nodenext and skipLibCheck false; and every `any`
 * of the shipped declarations, found on their syntax trees.
 */
export const CONSUMER_TSCONFIG = (typeRoots: string) => ({
  compilerOptions: {
    strict: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    skipLibCheck: false,
    noEmit: true,
    types: ["node"],
    typeRoots: [typeRoots]
  },
  files: ["consumer.ts"]
})

/**
 * The same consumer without Node's types (`"types": []`, no typeRoots): the published declarations must not need
 * @types/node, which a consumer may not have (nothing installs it for them). A consumer's own `console` comes from
 * the default DOM library here.
 */
export const CONSUMER_TSCONFIG_WITHOUT_NODE = {
  compilerOptions: { ...CONSUMER_TSCONFIG("").compilerOptions, types: [], typeRoots: undefined },
  files: ["consumer.ts"]
}

export const CONSUMER_SOURCE = `
import { Effect, Layer, Schema } from "effect"
import {
  ActivitySink, type ApprovalRequest, ApprovalPrompt, Connections, type ConnectionInput, type DbdeskServer, defineTool,
  makeServerLayer, McpServerAddress, type ServerEventMap, startMcpServer, type StartMcpServerOptions, TokenStore, Tokens,
  toolResult
} from "dbdesk"
import { Connection, type PendingApproval, ProtocolError, type TokenSummary } from "dbdesk/domain"
import { compileFilter, parseConsoleInput } from "dbdesk/search"

const approve = async (request: ApprovalRequest): Promise<boolean> =>
  request.kind === "statement" && !request.destructive && request.access !== "anonymous" && request.statement !== undefined

const connections: ReadonlyArray<ConnectionInput> = [{ id: "orders", name: "Orders", type: "sqlite", path: "/tmp/orders.db" }]
const options: StartMcpServerOptions = { home: "/tmp/host", port: 0, ui: false, connections, approve, settings: { mcp: { requireAuth: true } } }

export const facade = async (): Promise<string> => {
  const server: DbdeskServer = await startMcpServer(options)
  const stop: () => void = server.events.on("approval.asked", (request) => console.log(request.connectionName, request.tool))
  server.events.on("approval.answered", (answer) => console.log(answer.decision === "no_response"))
  server.events.on("activity.appended", (entry) => console.log(entry.hash, entry.prevHash))
  server.events.on("client.connected", (client) => console.log(client.clientName))
  server.events.on("token.used", (token: TokenSummary) => console.log(token.lastUsedAt))
  const payload: ServerEventMap["token.used"]["access"] = "readOnly"
  const { id, value } = await server.tokens.create({ name: "client", access: payload, connections: ["orders"], expires: "30d" })
  const listed: ReadonlyArray<TokenSummary> = await server.tokens.list()
  await server.tokens.revoke(id)
  stop()
  await server.stop()
  return \`\${server.url} \${server.port} \${value} \${listed.length}\`
}

const echo = defineTool({
  name: "host_echo",
  title: "Echo",
  description: "Echoes its text",
  arguments: Schema.Struct({ text: Schema.String }),
  scopes: [],
  readOnly: true,
  prepare: (args) => Effect.succeed(Effect.succeed(toolResult({ echoed: args.text })))
})

export const effectApi = Effect.scoped(Effect.gen(function*() {
  const layer = makeServerLayer({
    home: "/tmp/host",
    ui: false,
    connections: Connections.layerMemory(connections),
    approvalPrompt: ApprovalPrompt.host(approve),
    tokenStore: TokenStore.memory(),
    activitySink: ActivitySink.memory(),
    extraTools: [echo]
  })
  const context = yield* Layer.build(layer)
  const address = yield* Effect.provide(McpServerAddress, context)
  const tokens = yield* Effect.provide(Tokens, context)
  const created = yield* tokens.create({ name: "t", access: "readWrite", connections: "all" })
  return \`\${address.url} \${created.token.id}\`
}))

export const domain = (pending: PendingApproval): string =>
  Schema.decodeUnknownSync(Connection)(connections[0]).name + pending.message + new ProtocolError({ code: -32602, message: "x" }).message
export const search = [compileFilter({ filters: [], logic: "and" }, []), parseConsoleInput("GET /collections")]

// @ts-expect-error nothing under dist/ or src/ is reachable: the exports map is the whole public API
import("dbdesk/dist/lib/index.js")
`

/** Every \`any\` keyword in the .d.ts files under \`directory\`, as "file:line text". */
export const anyInDeclarations = (directory: string): Array<string> => {
  const files = (dir: string): Array<string> =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".d.ts") ? [join(dir, entry.name)] : []
    )
  return files(directory).flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
    const found: Array<string> = []
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword && !isEffectErrorBase(node)) {
        found.push(
          `${relative(directory, file)}:${
            source.getLineAndCharacterOfPosition(node.getStart()).line + 1
          } ${node.parent.getText()}`
        )
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    return found
  })
}

/**
 * The one \`any\` tsc writes that is Effect's, not dbdesk's: \`declare const X_base: new <A extends Record<string, any> = {}>\`,
 * the constructor type of a \`Data.TaggedError\` base class, copied from Effect's own signature.
 */
const isEffectErrorBase = (node: ts.Node): boolean => {
  const record = node.parent
  if (
    !ts.isTypeReferenceNode(record) || record.typeName.getText() !== "Record" ||
    !ts.isTypeParameterDeclaration(record.parent)
  ) return false
  let scope: ts.Node | undefined = record.parent
  while (scope !== undefined && !ts.isVariableDeclaration(scope)) scope = scope.parent
  return scope !== undefined && scope.name.getText().endsWith("_base")
}
