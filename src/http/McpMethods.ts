import { Context, Effect, Layer } from "effect"
import type { McpMethod } from "./McpMethod.ts"
import { CompletionMethod } from "./methods/Completion.ts"
import { DiscoverMethod } from "./methods/Discover.ts"
import { InitializeMethod } from "./methods/Initialize.ts"
import { LoggingSetLevelMethod } from "./methods/LoggingSetLevel.ts"
import { PingMethod } from "./methods/Ping.ts"
import { PromptsGetMethod } from "./methods/PromptsGet.ts"
import { PromptsListMethod } from "./methods/PromptsList.ts"
import { ResourcesListMethod } from "./methods/ResourcesList.ts"
import { ResourcesReadMethod } from "./methods/ResourcesRead.ts"
import { ResourcesTemplatesListMethod } from "./methods/ResourcesTemplatesList.ts"
import { SubscriptionsListenMethod } from "./methods/SubscriptionsListen.ts"
import { ToolsCallMethod } from "./methods/ToolsCall.ts"
import { ToolsListMethod } from "./methods/ToolsList.ts"

/** The method table of wire contract §4.3; each method lives in its own file under `methods/`. */
export class McpMethods extends Context.Tag("dbdesk/http/McpMethods")<McpMethods, ReadonlyMap<string, McpMethod>>() {
  static readonly fromMethods = (methods: ReadonlyArray<McpMethod>) =>
    new Map(methods.map((method) => [method.name, method] as const))

  static readonly layer = Layer.effect(
    McpMethods,
    Effect.map(
      Effect.all([
        DiscoverMethod,
        InitializeMethod,
        PingMethod,
        LoggingSetLevelMethod,
        ToolsListMethod,
        ToolsCallMethod,
        ResourcesListMethod,
        ResourcesTemplatesListMethod,
        ResourcesReadMethod,
        PromptsListMethod,
        PromptsGetMethod,
        CompletionMethod,
        SubscriptionsListenMethod
      ]),
      McpMethods.fromMethods
    )
  )
}
