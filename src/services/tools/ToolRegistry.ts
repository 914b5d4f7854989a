import { Context, Effect, Layer } from "effect"
import { ConnectionTools } from "./ConnectionTools.ts"
import { ContinuationTools } from "./ContinuationTools.ts"
import { DataTools } from "./DataTools.ts"
import { ExportTools } from "./ExportTools.ts"
import { QueryTools } from "./QueryTools.ts"
import { SchemaTools } from "./SchemaTools.ts"
import { SearchDocumentTools } from "./SearchDocumentTools.ts"
import type { AnyTool } from "./Tool.ts"
import { WriteTools } from "./WriteTools.ts"

/** The tools offered by `tools/list`, sorted by name (D-21). */
export class ToolRegistry extends Context.Tag("dbdesk/services/tools/ToolRegistry")<ToolRegistry, {
  readonly tools: ReadonlyArray<AnyTool>
  readonly get: (name: string) => AnyTool | undefined
}>() {
  static readonly fromTools = (tools: ReadonlyArray<AnyTool>) => {
    const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const byName = new Map(sorted.map((tool) => [tool.name, tool] as const))
    return { tools: sorted, get: (name: string) => byName.get(name) }
  }

  /** The built-in tools, plus any an embedding host adds (names must not clash with the built-in ones). */
  static readonly layerWith = (extra: ReadonlyArray<AnyTool>) =>
    Layer.effect(
      ToolRegistry,
      Effect.map(
        Effect.all([
          ConnectionTools,
          SchemaTools,
          DataTools,
          QueryTools,
          WriteTools,
          SearchDocumentTools,
          ContinuationTools,
          ExportTools
        ]),
        (families) => {
          const builtIn = families.flat()
          const clash = extra.find((tool) => builtIn.some((own) => own.name === tool.name))
          if (clash !== undefined) throw new Error(`An extra tool may not replace the built-in tool ${clash.name}`)
          return ToolRegistry.fromTools([...builtIn, ...extra])
        }
      )
    )

  static readonly layer = ToolRegistry.layerWith([])
}
