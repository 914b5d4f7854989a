import type { Principal } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { LEAN_PRESET } from "../../domain/ToolNames.ts"
import type { AnyTool } from "./Tool.ts"

export { BUILT_IN_TOOL_NAMES, LEAN_PRESET } from "../../domain/ToolNames.ts"
export const LEAN_TOOLS: ReadonlyArray<string> = ["list_connections", "describe_table", "execute_query"]

/** Whether a token's toolset (none: every tool) holds the tool. */
export const toolsetAllows = (toolset: ReadonlyArray<string> | undefined, name: string, curated: boolean): boolean =>
  toolset === undefined || toolset.includes(name) ||
  (toolset.includes(LEAN_PRESET) && (curated || LEAN_TOOLS.includes(name)))

const byName = (a: AnyTool, b: AnyTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The built-in and curated tools a caller is offered, sorted by name (its scopes are checked by the caller). */
export const offeredTools = (
  builtIn: ReadonlyArray<AnyTool>,
  curated: ReadonlyArray<AnyTool>,
  principal: Pick<Principal, "tools">
): ReadonlyArray<AnyTool> => {
  const toolset = principal.tools
  if (toolset === undefined && curated.length === 0) return builtIn
  return [
    ...builtIn.filter((tool) => toolsetAllows(toolset, tool.name, false)),
    ...curated.filter((tool) => toolsetAllows(toolset, tool.name, true))
  ].sort(byName)
}

/** A call to a tool outside the token's toolset is refused like a missing scope (-33007). */
export const outsideToolset = (
  name: string,
  principal: Pick<Principal, "tools">,
  curated: boolean
): ProtocolError | undefined =>
  toolsetAllows(principal.tools, name, curated)
    ? undefined
    : ProtocolError.of(-33007, `The tool ${name} is not in the toolset of this token`, {
      reason: "outside_toolset",
      tool: name
    })
