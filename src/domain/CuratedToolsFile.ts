import { Either, ParseResult, Schema } from "effect"
import { CuratedToolsFile, definitionProblems } from "./CuratedTool.ts"

/** The line (1-based) of a character offset. */
const lineAt = (text: string, offset: number): number => text.slice(0, Math.max(0, offset)).split("\n").length

/** The line of the `index`-th tool: where its `"name"` value stands, else the line of the `"tools"` key. */
const toolLine = (text: string, name: string | undefined): number => {
  if (name !== undefined) {
    const at = text.search(new RegExp(`"name"\\s*:\\s*${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
    if (at >= 0) return lineAt(text, at)
  }
  const tools = text.indexOf("\"tools\"")
  return tools < 0 ? 1 : lineAt(text, tools)
}

/** Whether JSON.parse fails on the prefix for a reason other than the text ending early. */
const failsBeforeEnd = (prefix: string): boolean => {
  try {
    JSON.parse(prefix)
    return false
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/end of JSON input/i.test(message)) return false
    const position = /position (\d+)/.exec(message)
    return position === null || Number(position[1]) < prefix.trimEnd().length
  }
}

/**
 * Where JSON.parse stopped: not every engine's message says, so the shortest prefix that fails for a reason other
 * than ending early is found by bisection (a prefix that holds the fault fails, and so does every longer one).
 */
const syntaxLine = (text: string): number => {
  let low = 1
  let high = text.length
  if (!failsBeforeEnd(text)) return lineAt(text, text.length)
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (failsBeforeEnd(text.slice(0, middle))) high = middle
    else low = middle + 1
  }
  return lineAt(text, low - 1)
}

/**
 * `tools.json` read and checked as a whole: the JSON, the schema, each tool's own fields, names unique and not those
 * of a built-in tool. An error names the line, so a file edited by hand or merged in version control can be fixed;
 * the caller keeps the previous set in force while the file is wrong.
 */
export const parseCuratedToolsFile = (
  text: string,
  reservedNames: ReadonlyArray<string>
): Either.Either<CuratedToolsFile, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return Either.left(`line ${syntaxLine(text)}: the file is not valid JSON (${message})`)
  }
  const decoded = Schema.decodeUnknownEither(CuratedToolsFile, { onExcessProperty: "error", errors: "all" })(json)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    const index = issue?.path[0] === "tools" && typeof issue.path[1] === "number" ? issue.path[1] : undefined
    const tools = (json as { tools?: ReadonlyArray<{ name?: unknown }> } | null)?.tools
    const name = index === undefined ? undefined : tools?.[index]?.name
    const line = index === undefined ? 1 : toolLine(text, typeof name === "string" ? name : undefined)
    const where = (issue?.path ?? []).map(String).join(".")
    return Either.left(
      `line ${line}: ${where === "" ? "the file" : where}: ${issue?.message ?? "does not match the tools file schema"}`
    )
  }
  const seen = new Set<string>()
  for (const tool of decoded.right.tools) {
    const problems = [...definitionProblems(tool)]
    if (reservedNames.includes(tool.name)) problems.push(`${tool.name} is the name of a built-in tool`)
    if (seen.has(tool.name)) problems.push(`a second tool is named ${tool.name}`)
    seen.add(tool.name)
    if (problems.length > 0) {
      return Either.left(`line ${toolLine(text, tool.name)}: tool ${tool.name}: ${problems.join("; ")}`)
    }
  }
  return Either.right(decoded.right)
}
