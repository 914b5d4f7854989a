import { Context, Effect, Layer } from "effect"
import type { McpMethod } from "./McpMethod.ts"
import { DiscoverMethod } from "./methods/Discover.ts"
import { InitializeMethod } from "./methods/Initialize.ts"
import { LoggingSetLevelMethod } from "./methods/LoggingSetLevel.ts"
import { PingMethod } from "./methods/Ping.ts"
import { ToolsCallMethod } from "./methods/ToolsCall.ts"
import { ToolsListMethod } from "./methods/ToolsList.ts"

/** The method table of wire contract §4.3; each method lives in its own file under `methods/`. */
export class McpMethods extends Context.Tag("dbdesk/http/McpMethods")<McpMethods, ReadonlyMap<string, McpMethod>>() {
  static readonly fromMethods = (methods: ReadonlyArray<McpMethod>) =>
    new Map(methods.map((method) => [method.name, method] as const))

  static readonly layer = Layer.effect(
    McpMethods,
    Effect.map(Effect.all([DiscoverMethod, InitializeMethod, PingMethod, LoggingSetLevelMethod, ToolsListMethod, ToolsCallMethod]), McpMethods.fromMethods)
  )
}
