import { Effect } from "effect"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import type { Principal } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { ConnectionAccess } from "../ConnectionAccess.ts"
import { HISTORY_LIMIT } from "../QueryHistory.ts"
import { HostCatalog } from "./HostCatalog.ts"
import { LiveSchema } from "./LiveSchema.ts"
import { promptNamed } from "./PromptCatalog.ts"
import { RESOURCE_TEMPLATES } from "./ResourceUris.ts"

/** D-49: at most 100 values per completion. */
export const MAX_COMPLETIONS = 100
const LIMIT_VALUES = ["10", "50", "100", String(HISTORY_LIMIT.max)]

export interface Completion {
  readonly values: ReadonlyArray<string>
  readonly total: number
  readonly hasMore: boolean
}

const natural = (a: string, b: string) => a.localeCompare(b, "en", { sensitivity: "base", numeric: true })

/**
 * D-47: prefix matches first, then substring matches (case-insensitive), each in
 * natural order unless `ordered` keeps a fixed list's declared order; duplicates once; ≤ 100 values.
 */
export const rankCompletions = (candidates: ReadonlyArray<string>, typed: string, ordered = false): Completion => {
  const needle = typed.toLowerCase()
  const unique = [...new Set(candidates)]
  const sort = (items: Array<string>) => (ordered ? items : items.sort(natural))
  const prefix = sort(unique.filter((value) => value.toLowerCase().startsWith(needle)))
  const inside = sort(
    unique.filter((value) => !value.toLowerCase().startsWith(needle) && value.toLowerCase().includes(needle))
  )
  const all = [...prefix, ...inside]
  return { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS }
}

const stringArg = (args: JsonObject, ...names: ReadonlyArray<string>) => {
  for (const name of names) {
    const value = args[name]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return undefined
}

/**
 * `completion/complete` for prompt arguments and resource-template variables: connection ids and
 * names, table and collection names of the referenced connection, and fixed lists. A hidden
 * connection named in the context is -33007 (D-12); an unknown argument completes to nothing.
 */
export class Completions extends Effect.Service<Completions>()("dbdesk/services/resources/Completions", {
  effect: Effect.gen(function*() {
    const access = yield* ConnectionAccess
    const schema = yield* LiveSchema
    const host = yield* HostCatalog

    const tablesOf = (principal: Principal, connection: string | undefined, byName: boolean) =>
      Effect.gen(function*() {
        if (connection === undefined) return []
        const resolved =
          yield* (byName ? schema.resolveByIdOrName(principal, connection) : schema.resolve(principal, connection))
        return (yield* schema.tables(resolved)).map((entry) => entry.name)
      })

    const complete = Effect.fn("Completions.complete")(function*(principal: Principal, params: JsonObject) {
      const ref = params["ref"]
      const argument = params["argument"]
      if (
        !isJsonObject(ref) || !isJsonObject(argument) || typeof argument["name"] !== "string" ||
        typeof argument["value"] !== "string"
      ) {
        return yield* ProtocolError.invalidParams(
          "completion/complete needs ref {type, name|uri} and argument {name, value}"
        )
      }
      const context = params["context"]
      const args: JsonObject = isJsonObject(context) && isJsonObject(context["arguments"]) ? context["arguments"] : {}
      const name = argument["name"]
      const typed = argument["value"]
      const visible = yield* access.visible(principal)
      let candidates: ReadonlyArray<string> = []
      let ordered = false
      const hosted = ref["type"] === "ref/prompt"
        ? (typeof ref["name"] === "string" ? host.prompt(ref["name"]) : undefined)
        : (ref["type"] === "ref/resource" && typeof ref["uri"] === "string"
          ? host.templateNamed(ref["uri"])
          : undefined)
      if (hosted !== undefined) return rankCompletions(hosted.complete?.(name, typed, args) ?? [], typed)
      if (ref["type"] === "ref/prompt") {
        const prompt = typeof ref["name"] === "string" ? promptNamed(ref["name"]) : undefined
        if (prompt === undefined) {
          return yield* ProtocolError.invalidParams(`Unknown prompt ${JSON.stringify(ref["name"])}; call prompts/list`)
        }
        if (!prompt.arguments.some((declared) => declared.name === name)) return rankCompletions([], typed)
        const connection = stringArg(args, "connection")
        if (name === "connection") candidates = visible.flatMap((item) => [item.name, item.id])
        else if (name === "table" || name === "collection") candidates = yield* tablesOf(principal, connection, true)
      } else if (ref["type"] === "ref/resource") {
        const template = RESOURCE_TEMPLATES.find((item) => item.uriTemplate === ref["uri"])
        if (template === undefined) {
          return yield* ProtocolError.invalidParams(
            `Unknown resource template ${JSON.stringify(ref["uri"])}; call resources/templates/list`
          )
        }
        const connection = stringArg(args, "connection_id")
        if (!template.uriTemplate.includes(`{${name}}`) && !template.uriTemplate.includes(`{?${name}}`)) {
          return rankCompletions([], typed)
        }
        if (name === "connection_id") candidates = visible.map((item) => item.id)
        else if (name === "table") candidates = yield* tablesOf(principal, connection, false)
        else if (name === "limit") [candidates, ordered] = [LIMIT_VALUES, true]
      } else {
        return yield* ProtocolError.invalidParams("ref.type must be ref/prompt or ref/resource")
      }
      return rankCompletions(candidates, typed, ordered)
    })

    return { complete } as const
  })
}) {}
