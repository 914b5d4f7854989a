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
