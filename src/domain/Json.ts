import { Schema } from "effect"

/** A JSON value as it travels on the wire: never `undefined`, never `-0` surprises in opaque params. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

export const Json: Schema.Schema<Json> = Schema.suspend(
  (): Schema.Schema<Json> =>
    Schema.Union(
      Schema.Null,
      Schema.Boolean,
      Schema.Finite,
      Schema.String,
      Schema.Array(Json),
      Schema.Record({ key: Schema.String, value: Json })
    )
)

export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: Json })

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a parsed JSON value nests arrays and objects more than `limit` levels deep, found without recursion (so
 * any depth JSON.parse accepts is measured safely). Decoding and digesting a value recurse once per level.
 */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!
    if (typeof next !== "object" || next === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1])
    }
  }
  return false
}
