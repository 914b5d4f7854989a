import { Schema } from "effect"
import { Json, JsonObject } from "./Json.ts"

/** Wire contract §2.1: `id` is an integer or a string, absent for notifications. */
export const RequestId = Schema.Union(Schema.Int, Schema.String)
export type RequestId = typeof RequestId.Type

export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optionalWith(RequestId, { exact: true }),
  method: Schema.String,
  params: Schema.optionalWith(JsonObject, { exact: true })
})
export type JsonRpcRequest = typeof JsonRpcRequest.Type

/**
 * `JsonRpcRequest` checked by hand for a value that came from `JSON.parse` (so every member is JSON already): the
 * request path runs this on every call, where the Schema walked the whole of `params` (D-84).
 */
export const readJsonRpcRequest = (value: { readonly [key: string]: unknown }): JsonRpcRequest | undefined => {
  const { jsonrpc, id, method, params } = value
  if (jsonrpc !== "2.0" || typeof method !== "string") return undefined
  if (id !== undefined && typeof id !== "string" && !(typeof id === "number" && Number.isInteger(id))) return undefined
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) return undefined
  return value as JsonRpcRequest
}

export const JsonRpcErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalWith(Json, { exact: true })
})
export type JsonRpcErrorObject = typeof JsonRpcErrorObject.Type

export const JsonRpcSuccess = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  result: JsonObject
})
export type JsonRpcSuccess = typeof JsonRpcSuccess.Type

export const JsonRpcFailure = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(RequestId),
  error: JsonRpcErrorObject
})
export type JsonRpcFailure = typeof JsonRpcFailure.Type

export const JsonRpcNotification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optionalWith(JsonObject, { exact: true })
})
export type JsonRpcNotification = typeof JsonRpcNotification.Type

/** A body that is a JSON-RPC response (has `result` or `error`, no `method`): wire contract §4.1 answers -32600. */
export const looksLikeResponse = (value: { readonly [key: string]: unknown }): boolean =>
  !("method" in value) && ("result" in value || "error" in value)
