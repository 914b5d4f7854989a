import { Context, Effect, Layer } from "effect"
import { ConnectionTools } from "./ConnectionTools.ts"
import { DataTools } from "./DataTools.ts"
import { QueryTools } from "./QueryTools.ts"
import { SchemaTools } from "./SchemaTools.ts"
import { SearchDocumentTools } from "./SearchDocumentTools.ts"
import type { AnyTool } from "./Tool.ts"
import { WriteTools } from "./WriteTools.ts"

/** The tools offered by `tools/list`, sorted by name (product-decisions §3). */
export class ToolRegistry extends Context.Tag("dbdesk/services/tools/ToolRegistry")<ToolRegistry, {
  readonly tools: ReadonlyArray<AnyTool>
  readonly get: (name: string) => AnyTool | undefined
}>() {
  static readonly fromTools = (tools: ReadonlyArray<AnyTool>) => {
    const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const byName = new Map(sorted.map((tool) => [tool.name, tool] as const))
    return { tools: sorted, get: (name: string) => byName.get(name) }
  }

  static readonly layer = Layer.effect(
    ToolRegistry,
    Effect.map(Effect.all([ConnectionTools, SchemaTools, DataTools, QueryTools, WriteTools, SearchDocumentTools]), (families) => ToolRegistry.fromTools(families.flat()))
  )
}
