// D-65 on search connections: masking rules on document fields for MCP callers, applied to the engine's
// response before the console renders it (so a grid, a JSON cell or an export shows the same guarded documents).
// Collections are named by the request; an alias counts as the collection it points to too.
import { Effect } from "effect"
import { type AppliedRule, untraceableRefusal } from "../domain/AnswerGate.ts"
import type { MaskingRuleSpec } from "../domain/ColumnGuard.ts"
import { guardDocument } from "../domain/DocumentGuard.ts"
import { policyFailure } from "../domain/ToolErrors.ts"
import type { ConsoleRequest } from "./ConsoleRequest.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Alias → collection, read when rules exist (a request may name a collection by an alias). */
export const aliasesOf = (client: SearchClient, options?: CallOptions) =>
  client.send("GET", "/aliases", undefined, options).pipe(
    Effect.map((response) => {
      const parsed: unknown = response.status === 200 ? JSON.parse(response.body) : undefined
      const aliases = isObject(parsed) && Array.isArray(parsed["aliases"]) ? parsed["aliases"] : []
      return new Map(
        aliases.flatMap((entry: unknown) =>
          isObject(entry) && typeof entry["name"] === "string" && typeof entry["collection_name"] === "string"
            ? [[entry["name"], entry["collection_name"]] as const]
            : []
        )
      )
    }),
    Effect.orElseSucceed(() => new Map<string, string>())
  )

/** A document guarded under every name of its collection (the name used, and the collection an alias points to). */
const guardUnder = (
  document: Record<string, unknown>,
  names: ReadonlyArray<string>,
  rules: ReadonlyArray<MaskingRuleSpec>,
  applied: Array<AppliedRule>
) => names.reduce((guarded, name) => guardDocument(guarded, name, rules, applied), document)

/** A search result's hits: documents guarded, highlights (snippets of field values) left out. */
const guardHits = (
  result: Record<string, unknown>,
  names: ReadonlyArray<string>,
  rules: ReadonlyArray<MaskingRuleSpec>,
  applied: Array<AppliedRule>
) => {
  const hits = (list: unknown) =>
    Array.isArray(list)
      ? list.map((hit) => {
        if (!isObject(hit)) return hit
        const { highlight: _highlight, highlights: _highlights, ...rest } = hit
        return isObject(rest["document"])
          ? { ...rest, document: guardUnder(rest["document"], names, rules, applied) }
          : rest
      })
      : list
  const groups = Array.isArray(result["grouped_hits"])
    ? result["grouped_hits"].map((
      group: unknown
    ) => (isObject(group) ? { ...group, hits: hits(group["hits"]) } : group))
    : result["grouped_hits"]
  return { ...result, hits: hits(result["hits"]), ...(groups === undefined ? {} : { grouped_hits: groups }) }
}

const parse = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const collectionOfPath = (path: string): string | undefined => {
  const match = /^\/collections\/([^/?#]+)/.exec(path)
  return match === null ? undefined : decodeURIComponent(match[1]!)
}

/**
 * The engine's response body with the rules applied to every document in it: search hits (grids and multi-search
 * batches), a document, JSON lines of an export. A multi-search whose collection cannot be told is refused.
 */
export const guardResponseBody = (
  body: string,
  request: ConsoleRequest,
  aliases: ReadonlyMap<string, string>,
  rules: ReadonlyArray<MaskingRuleSpec>,
  applied: Array<AppliedRule>
): Effect.Effect<string, ReturnType<typeof policyFailure>> => {
  const namesOf = (collection: string) => [collection, ...(aliases.has(collection) ? [aliases.get(collection)!] : [])]
  const path = request.path.split("?")[0] ?? ""
  const query = new URLSearchParams(request.path.split("?")[1] ?? "")
  const collection = collectionOfPath(path)
  const unreadable = Effect.fail(
    policyFailure(
      untraceableRefusal(
        "the engine's answer could not be read as documents",
        collection ?? "the collection",
        rules[0]!
      )
    )
  )
  if (collection !== undefined && path.includes("/documents")) {
    const names = namesOf(collection)
    const whole = parse(body)
    if (whole === undefined) {
      // JSON lines (export, import results): each line a document.
      const lines = body.split("\n").map((line) => (line.trim() === "" ? { value: undefined } : parse(line)))
      if (lines.some((line) => line === undefined)) return unreadable
      return Effect.succeed(
        lines.map((line) =>
          line!.value === undefined
            ? ""
            : JSON.stringify(isObject(line!.value) ? guardUnder(line!.value, names, rules, applied) : line!.value)
        ).join("\n")
      )
    }
    const parsed = whole.value
    if (Array.isArray(parsed)) {
      return Effect.succeed(
        JSON.stringify(parsed.map((item) => (isObject(item) ? guardUnder(item, names, rules, applied) : item)))
      )
    }
    if (!isObject(parsed)) return Effect.succeed(body)
    return Effect.succeed(
      JSON.stringify(
        Array.isArray(parsed["hits"])
          ? guardHits(parsed, names, rules, applied)
          : guardUnder(parsed, names, rules, applied)
      )
    )
  }
  if (path !== "/multi_search") return Effect.succeed(body)
  const whole = parse(body)
  if (whole === undefined) return unreadable
  const parsed = whole.value
  const searches =
    request.body?._tag === "Json" && isObject(request.body.value) && Array.isArray(request.body.value["searches"])
      ? request.body.value["searches"]
      : []
  if (!isObject(parsed) || !Array.isArray(parsed["results"])) return Effect.succeed(body)
  const results: Array<unknown> = []
  for (const [index, result] of parsed["results"].entries()) {
    const search: unknown = searches[index]
    const name = isObject(search) && typeof search["collection"] === "string"
      ? search["collection"]
      : query.get("collection") ?? undefined
    if (name === undefined) {
      const rule = rules[0]!
      return Effect.fail(
        policyFailure(
          untraceableRefusal(`search ${index + 1} of this multi_search names no collection`, "its collection", rule)
        )
      )
    }
    results.push(isObject(result) ? guardHits(result, namesOf(name), rules, applied) : result)
  }
  return Effect.succeed(JSON.stringify({ ...parsed, results }))
}
