import { Effect } from "effect"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { ToolFailure } from "../../domain/ToolErrors.ts"
import { toolScopeRefusal } from "../../services/policy/StatementPolicy.ts"
import { SettingsStore } from "../../services/Settings.ts"
import { toolErrorResult } from "../../services/tools/Tool.ts"
import { capToolAnswer } from "../../services/tools/ToolAnswerCaps.ts"
import { CuratedToolSet } from "../../services/tools/CuratedToolSet.ts"
import { outsideToolset } from "../../services/tools/Toolsets.ts"
import { ToolRegistry } from "../../services/tools/ToolRegistry.ts"
import type { McpMethod } from "../McpMethod.ts"

/**
 * Wire contract §2.3/§4.3: `tools/call` needs `tools:read` plus the tool's own scope; an unknown
 * tool is -32602; a tool that fails is a successful result with `isError: true` (§7.2).
 */
export const ToolsCallMethod = Effect.gen(function*() {
  const registry = yield* ToolRegistry
  const settings = yield* SettingsStore
  const curated = yield* Effect.serviceOption(CuratedToolSet)
  /** Every answer within limits.maxCellBytes / maxAnswerBytes, read at call time (D-71). */
  const capped = (result: JsonObject) => Effect.map(settings.current, ({ limits }) => capToolAnswer(result, limits))
  return {
    name: "tools/call",
    eras: ["modern", "legacy"],
    scopes: ["tools:read"],
    prepare: (context) =>
      Effect.gen(function*() {
        const name = context.params["name"]
        if (typeof name !== "string") {
          return yield* ProtocolError.invalidParams("params.name must be the name of a tool from tools/list")
        }
        const builtIn = registry.get(name)
        const tool = builtIn ??
          (curated._tag === "Some" ? curated.value.now().tools.find((own) => own.name === name) : undefined)
        if (tool === undefined) {
          return yield* ProtocolError.invalidParams(
            `Unknown tool ${JSON.stringify(name)}; call tools/list for the tools you can use`,
            { tool: name }
          )
        }
        const refusal = outsideToolset(name, context.principal, builtIn === undefined) ??
          toolScopeRefusal(name, tool.scopes, context.principal.scopes)
        if (refusal !== undefined) return yield* refusal
        const args = context.params["arguments"]
        if (args !== undefined && !isJsonObject(args)) {
          return yield* ProtocolError.invalidParams("params.arguments must be an object")
        }
        const run = yield* tool.prepare(args ?? {}, context)
        return run.pipe(
          Effect.catchIf((error): error is ToolFailure => error instanceof ToolFailure, (failure) =>
            Effect.succeed(toolErrorResult(failure))),
          Effect.flatMap(capped)
        )
      }).pipe(Effect.catchIf((error): error is ToolFailure =>
        error instanceof ToolFailure, (failure) =>
        Effect.succeed(Effect.succeed(toolErrorResult(failure)))))
  } satisfies McpMethod
})
