import { Effect } from "effect"
import { createHmac, randomUUID } from "node:crypto"
import { isJsonObject, type JsonObject } from "../../../src/domain/Json.ts"
import { ProtocolError } from "../../../src/domain/ProtocolErrors.ts"
import type { MethodContext } from "../../../src/http/McpMethod.ts"
import type { AnyTool } from "../../../src/services/tools/Tool.ts"

/**
 * The official conformance suite's fixture tools (the behaviour of its reference "everything"
 * server), offered through dbdesk's `extraTools`: content of every type, an error result, progress,
 * the `input_required` flows of the 2026-07-28 revision and the diagnostic tools of its stateless
 * checks. Test-only: dbdesk never ships them.
 */
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
export const SILENT_WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="

const NO_ARGUMENTS = { type: "object", properties: {} } as const

/** A fixture tool: raw arguments, its own listing, and an answer computed from the whole call. */
const fixture = (
  name: string,
  description: string,
  answer: (context: MethodContext) => Effect.Effect<JsonObject, ProtocolError>,
  inputSchema: JsonObject = NO_ARGUMENTS
): AnyTool => ({
  name,
  scopes: [],
  listing: { name, description, inputSchema },
  prepare: (_arguments, context) => Effect.succeed(answer(context))
})

const constant = (name: string, description: string, result: JsonObject) =>
  fixture(name, description, () => Effect.succeed(result))

const text = (value: string): JsonObject => ({ content: [{ type: "text", text: value }] })

/** The 2020-12 keywords the suite checks are kept in the listing exactly as written (SEP-1613, SEP-2106). */
const JSON_SCHEMA_2020_12: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } }
    }
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" }
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false
}

const contentTools: ReadonlyArray<AnyTool> = [
  constant(
    "test_simple_text",
    "Tests simple text content response",
    text("This is a simple text response for testing.")
  ),
  constant("test_image_content", "Tests image content response", {
    content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }]
  }),
  constant("test_audio_content", "Tests audio content response", {
    content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }]
  }),
  constant("test_embedded_resource", "Tests embedded resource content response", {
    content: [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      }
    }]
  }),
  constant("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", {
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 })
        }
      }
    ]
  }),
  constant("test_error_handling", "Tests error response handling", {
    isError: true,
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }]
  }),
  fixture(
    "test_tool_with_progress",
    "Tests tool that reports progress notifications",
    (context) =>
      Effect.gen(function*() {
        yield* context.progress(0, "started")
        yield* context.progress(0.5, "halfway")
        yield* context.progress(1, "done")
        return text("Progress test completed")
      })
  ),
  fixture(
    "json_schema_2020_12_tool",
    "Tool with JSON Schema 2020-12 features",
    () => Effect.succeed(text("ok")),
    JSON_SCHEMA_2020_12
  ),
  fixture(
    "test_custom_header",
    "Echoes a region that clients also send as the Mcp-Param-Region header",
    (context) =>
      Effect.succeed(text(`region: ${String((context.params["arguments"] as JsonObject | undefined)?.["region"])}`)),
    {
      type: "object",
      properties: { region: { type: "string", description: "a region name", "x-mcp-header": "Region" } },
      required: ["region"]
    }
  )
]

// --- 2026-07-28: input_required (SEP-2322) and the stateless diagnostics (SEP-2575) ---

const SECRET = `conformance-fixture-${randomUUID()}`
const sign = (payload: JsonObject) => {
  const data = JSON.stringify(payload)
  return JSON.stringify({ data, hmac: createHmac("sha256", SECRET).update(data).digest("hex") })
}
const verify = (raw: string): JsonObject | undefined => {
  try {
    const { data, hmac } = JSON.parse(raw) as { data: string; hmac: string }
    return hmac === createHmac("sha256", SECRET).update(data).digest("hex") ? JSON.parse(data) as JsonObject : undefined
  } catch {
    return undefined
  }
}

const responsesOf = (
  context: MethodContext
): JsonObject => (isJsonObject(context.params["inputResponses"]) ? context.params["inputResponses"] : {})
const stateOf = (
  context: MethodContext
) => (typeof context.params["requestState"] === "string" ? context.params["requestState"] : undefined)
const field = (response: unknown, name: string) => {
  const content = isJsonObject(response) && isJsonObject(response["content"]) ? response["content"] : {}
  return typeof content[name] === "string" ? content[name] : "unknown"
}

const elicit = (message: string, property: string, type = "string"): JsonObject => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties: { [property]: { type } }, required: [property] } }
})
const sample = (question: string, maxTokens: number): JsonObject => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens }
})
const ROOTS: JsonObject = { method: "roots/list", params: {} }

const inputRequired = (inputRequests: JsonObject, requestState?: string): JsonObject => ({
  resultType: "input_required",
  inputRequests,
  ...(requestState === undefined ? {} : { requestState })
})

const clientCapabilities = (context: MethodContext): JsonObject => context.envelope?.clientCapabilities ?? {}

const modernTools: ReadonlyArray<AnyTool> = [
  fixture(
    "test_missing_capability",
    "Test tool requiring sampling",
    (context) =>
      isJsonObject(clientCapabilities(context)["sampling"])
        ? Effect.succeed(text("Success"))
        : Effect.fail(
          ProtocolError.of(-32021, "This tool needs the client capability sampling", {
            requiredCapabilities: { sampling: {} }
          })
        )
  ),
  constant(
    "test_streaming_elicitation",
    "Diagnostic tool validating response progress streams",
    text("Streaming complete")
  ),
  constant("test_logging_tool", "Diagnostic logging validator tool", text("Logging evaluated")),
  fixture(
    "test_input_required_result_elicitation",
    "MRTR: returns InputRequiredResult with elicitation request",
    (context) => {
      const answer = responsesOf(context)["user_name"]
      return Effect.succeed(
        answer === undefined
          ? inputRequired({ user_name: elicit("What is your name?", "name") })
          : text(`Hello, ${field(answer, "name")}!`)
      )
    }
  ),
  fixture(
    "test_input_required_result_sampling",
    "MRTR: returns InputRequiredResult with sampling request",
    (context) => {
      const answer = responsesOf(context)["sample_request"]
      const said =
        isJsonObject(answer) && isJsonObject(answer["content"]) && typeof answer["content"]["text"] === "string"
          ? answer["content"]["text"]
          : "no response"
      return Effect.succeed(
        answer === undefined
          ? inputRequired({ sample_request: sample("What is the capital of France?", 100) })
          : text(`Sampling result: ${said}`)
      )
    }
  ),
  fixture(
    "test_input_required_result_list_roots",
    "MRTR: returns InputRequiredResult with roots/list request",
    (context) => {
      const answer = responsesOf(context)["roots_request"]
      const roots = isJsonObject(answer) && Array.isArray(answer["roots"]) ? answer["roots"].length : 0
      return Effect.succeed(
        answer === undefined ? inputRequired({ roots_request: ROOTS }) : text(`Found ${roots} root(s)`)
      )
    }
  ),
  fixture(
    "test_input_required_result_request_state",
    "MRTR: returns InputRequiredResult with requestState",
    (context) => {
      const state = stateOf(context)
      const confirm = responsesOf(context)["confirm"]
      const confirmed = isJsonObject(confirm) && isJsonObject(confirm["content"]) && confirm["content"]["ok"] === true
      if (state !== undefined && confirmed && verify(state)?.["kind"] === "request-state") {
        return Effect.succeed(
          text("state-ok: requestState validated")
        )
      }
      return Effect.succeed(
        inputRequired(
          { confirm: elicit("Please confirm", "ok", "boolean") },
          sign({ kind: "request-state", nonce: randomUUID() })
        )
      )
    }
  ),
  fixture(
    "test_input_required_result_multiple_inputs",
    "MRTR: returns InputRequiredResult with multiple input requests",
    (context) => {
      const responses = responsesOf(context)
      const state = stateOf(context)
      if (
        state !== undefined && verify(state)?.["kind"] === "multiple-inputs" && responses["user_name"] !== undefined &&
        responses["greeting"] !== undefined && responses["client_roots"] !== undefined
      ) {
        const greeting = responses["greeting"]
        const said =
          isJsonObject(greeting) && isJsonObject(greeting["content"]) && typeof greeting["content"]["text"] === "string"
            ? greeting["content"]["text"]
            : "Hello there!"
        const roots = isJsonObject(responses["client_roots"]) && Array.isArray(responses["client_roots"]["roots"])
          ? responses["client_roots"]["roots"].length
          : 0
        return Effect.succeed(
          text(`Name: ${field(responses["user_name"], "name")}; Greeting: ${said}; Roots: ${roots}`)
        )
      }
      return Effect.succeed(inputRequired(
        {
          user_name: elicit("What is your name?", "name"),
          greeting: sample("Generate a greeting", 50),
          client_roots: ROOTS
        },
        sign({ kind: "multiple-inputs", nonce: randomUUID() })
      ))
    }
  ),
  fixture("test_input_required_result_multi_round", "MRTR: multi-round InputRequiredResult workflow", (context) => {
    const responses = responsesOf(context)
    const state = stateOf(context) === undefined ? undefined : verify(stateOf(context)!)
    if (state?.["round"] === 1 && responses["step1"] !== undefined) {
      return Effect.succeed(
        inputRequired(
          { step2: elicit("Step 2: What is your favorite color?", "color") },
          sign({ round: 2, name: field(responses["step1"], "name"), nonce: randomUUID() })
        )
      )
    }
    if (state?.["round"] === 2 && responses["step2"] !== undefined) {
      return Effect.succeed(
        text(`Multi-round complete for ${String(state["name"])} who likes ${field(responses["step2"], "color")}`)
      )
    }
    return Effect.succeed(
      inputRequired({ step1: elicit("Step 1: What is your name?", "name") }, sign({ round: 1, nonce: randomUUID() }))
    )
  }),
  fixture("test_input_required_result_tampered_state", "MRTR: HMAC-signed requestState integrity test", (context) => {
    const state = stateOf(context)
    if (state !== undefined) {
      const verified = verify(state)
      if (verified === undefined) return Effect.fail(ProtocolError.invalidParams("requestState integrity check failed"))
      if (verified["kind"] === "tamper-test" && responsesOf(context)["confirm"] !== undefined) {
        return Effect.succeed(text("integrity-ok: state verified"))
      }
    }
    return Effect.succeed(
      inputRequired(
        { confirm: elicit("Please confirm", "ok", "boolean") },
        sign({ kind: "tamper-test", nonce: randomUUID() })
      )
    )
  }),
  fixture(
    "test_input_required_result_capabilities",
    "MRTR: respects client capabilities in inputRequests",
    (context) => {
      const capabilities = clientCapabilities(context)
      const responses = responsesOf(context)
      if (Object.keys(responses).length > 0) {
        return Effect.succeed(
          text(`capabilities-ok: received ${Object.keys(responses).join(",")}`)
        )
      }
      const requests: Record<string, JsonObject> = {}
      if (isJsonObject(capabilities["elicitation"])) requests["elicit_input"] = elicit("Elicitation input", "value")
      if (isJsonObject(capabilities["sampling"])) requests["sample_input"] = sample("Sample request", 50)
      if (Object.keys(requests).length === 0) return Effect.succeed(text("No supported capabilities declared"))
      return Effect.succeed(inputRequired(requests, sign({ kind: "capabilities-test", nonce: randomUUID() })))
    }
  )
]

/**
 * The legacy fixtures that need what dbdesk deliberately does not do (docs/conformance.md): send a
 * request to the client in a legacy session (sampling, elicitation; a POSTed JSON-RPC response is
 * -32600, C4.1-h) or log notifications on a plain JSON answer (C4.1-i). They answer so that the
 * suite's failure names the reason instead of an unknown tool.
 */
const SERVER_REQUESTS =
  "dbdesk sends no server-to-client requests in a legacy session (a POSTed JSON-RPC response is -32600, wire contract C4.1-h); see docs/conformance.md"
const legacyTools: ReadonlyArray<AnyTool> = [
  constant(
    "test_tool_with_logging",
    "Tests tool that emits log messages during execution",
    text(
      "dbdesk sends no log notifications: a call without a progressToken is answered with plain JSON (wire contract C4.1-i)"
    )
  ),
  ...["test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"].map((
    name
  ) =>
    constant(name, "A conformance fixture dbdesk does not support (see docs/conformance.md)", {
      isError: true,
      content: [{ type: "text", text: SERVER_REQUESTS }]
    })
  )
]

export const FIXTURE_TOOLS: ReadonlyArray<AnyTool> = [...contentTools, ...modernTools, ...legacyTools]
