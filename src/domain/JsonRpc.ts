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
