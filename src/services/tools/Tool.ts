import { Effect, JSONSchema, ParseResult, Schema } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import type { Scope } from "../../domain/Principal.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import { ToolFailure } from "../../domain/ToolErrors.ts"
import type { MethodContext } from "../../http/McpMethod.ts"

/** The run of a tool call, after the response has started (product-decisions §3.2). */
export type ToolRun = Effect.Effect<JsonObject, ToolFailure | ProtocolError>

export interface Tool<A> {
  readonly name: string
  readonly title: string
  readonly description: string
  /** JSON types of the arguments: unknown keys, missing required ones or wrong types are -32602 (product-decisions §3). */
  readonly arguments: Schema.Schema<A, any>
  /** Scopes needed beyond `tools:read` (wire contract §4.3, product-decisions §3 "Scope"). */
  readonly scopes: ReadonlyArray<Scope>
  readonly readOnly: boolean
  /** Gates that may answer with a non-200 status run here; the returned run executes inside the response. */
  readonly prepare: (args: A, context: MethodContext) => Effect.Effect<ToolRun, ToolFailure | ProtocolError>
}

export interface AnyTool {
  readonly name: string
  readonly scopes: ReadonlyArray<Scope>
  readonly listing: JsonObject
  readonly prepare: (rawArguments: unknown, context: MethodContext) => Effect.Effect<ToolRun, ToolFailure | ProtocolError>
}

/** The 2.4.0 client requires `inputSchema.type` "object" (interop §12.4), also for a tool without arguments. */
const inputSchemaOf = (schema: Schema.Schema<any, any>): JsonObject => {
  const { $schema: _ignored, ...rest } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  if (rest["type"] !== "object") return { type: "object", properties: {}, additionalProperties: false }
  return rest as JsonObject
}

export const defineTool = <A>(tool: Tool<A>): AnyTool => {
  const decode = Schema.decodeUnknown(tool.arguments, { onExcessProperty: "error", errors: "all" })
  return {
    name: tool.name,
    scopes: tool.scopes,
    listing: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputSchemaOf(tool.arguments),
      annotations: { readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, openWorldHint: false }
    },
    prepare: (rawArguments, context) =>
      decode(rawArguments ?? {}).pipe(
        Effect.mapError((error) =>
          ProtocolError.invalidParams(`Invalid arguments for ${tool.name}: ${ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`).join("; ")}`)
        ),
        Effect.flatMap((args) => tool.prepare(args, context))
      )
  }
}

/** Results: `content` is the JSON of `structuredContent` (product-decisions §3). */
export const toolResult = (structuredContent: JsonObject): JsonObject => ({
  content: [{ type: "text", text: JSON.stringify(structuredContent) }],
  structuredContent,
  isError: false
})

export const toolErrorResult = (failure: ToolFailure): JsonObject => ({
  content: [{ type: "text", text: failure.message }],
  structuredContent: { error: { code: failure.code, message: failure.detail } },
  isError: true
})

/** Argument helpers: JSON types only; value rules are checked by the tool and answered `invalid_argument`. */
export const described = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  schema.annotations({ description }) as unknown as S
