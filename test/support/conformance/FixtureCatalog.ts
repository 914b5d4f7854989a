import { Effect } from "effect"
import { isJsonObject, type JsonObject } from "../../../src/domain/Json.ts"
import { ProtocolError } from "../../../src/domain/ProtocolErrors.ts"
import type { HostPrompt, HostResource, HostResourceTemplate } from "../../../src/services/resources/HostCatalog.ts"
import { RED_PIXEL_PNG } from "./FixtureTools.ts"

/**
 * The conformance suite's fixture prompts, resources and template (its reference server's
 * behaviour), offered through dbdesk's host extension points. Test-only.
 */
const user = (content: JsonObject): JsonObject => ({ role: "user", content })

const needs = (args: JsonObject, names: ReadonlyArray<string>, prompt: string) => {
  const missing = names.filter((name) => typeof args[name] !== "string")
  return missing.length === 0
    ? Effect.void
    : Effect.fail(ProtocolError.invalidParams(`${prompt} needs the string arguments ${missing.join(", ")}`))
}

export const FIXTURE_PROMPTS: ReadonlyArray<HostPrompt> = [
  {
    listing: {
      name: "test_simple_prompt",
      title: "Simple Test Prompt",
      description: "A simple prompt without arguments"
    },
    get: () => Effect.succeed({ messages: [user({ type: "text", text: "This is a simple prompt for testing." })] })
  },
  {
    listing: {
      name: "test_prompt_with_arguments",
      title: "Prompt With Arguments",
      description: "A prompt with required arguments",
      arguments: [{ name: "arg1", description: "First test argument", required: true }, {
        name: "arg2",
        description: "Second test argument",
        required: true
      }]
    },
    get: (args) =>
      Effect.as(needs(args, ["arg1", "arg2"], "test_prompt_with_arguments"), {
        messages: [
          user({
            type: "text",
            text: `Prompt with arguments: arg1='${String(args["arg1"])}', arg2='${String(args["arg2"])}'`
          })
        ]
      }),
    complete: (argument) => (argument === "arg1" ? ["paris", "park", "party", "test-value"] : [])
  },
  {
    listing: {
      name: "test_prompt_with_embedded_resource",
      title: "Prompt With Embedded Resource",
      description: "A prompt that includes an embedded resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }]
    },
    get: (args) =>
      Effect.as(needs(args, ["resourceUri"], "test_prompt_with_embedded_resource"), {
        messages: [
          user({
            type: "resource",
            resource: {
              uri: String(args["resourceUri"]),
              mimeType: "text/plain",
              text: "Embedded resource content for testing."
            }
          }),
          user({ type: "text", text: "Please process the embedded resource above." })
        ]
      })
  },
  {
    listing: {
      name: "test_prompt_with_image",
      title: "Prompt With Image",
      description: "A prompt that includes image content"
    },
    get: () =>
      Effect.succeed({
        messages: [
          user({ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }),
          user({ type: "text", text: "Please analyze the image above." })
        ]
      })
  },
  {
    listing: { name: "test_input_required_result_prompt", description: "MRTR: prompt that requires elicitation input" },
    get: (_args, context) => {
      const responses = isJsonObject(context.params["inputResponses"]) ? context.params["inputResponses"] : {}
      const answer = responses["user_context"]
      if (isJsonObject(answer) && isJsonObject(answer["content"])) {
        return Effect.succeed({
          messages: [user({ type: "text", text: `Prompt with context: ${String(answer["content"]["context"])}` })]
        })
      }
      return Effect.succeed({
        resultType: "input_required",
        inputRequests: {
          user_context: {
            method: "elicitation/create",
            params: {
              message: "What context should the prompt use?",
              requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] }
            }
          }
        }
      })
    }
  }
]

export const FIXTURE_RESOURCES: ReadonlyArray<HostResource> = [
  {
    listing: {
      uri: "test://static-text",
      name: "static-text",
      title: "Static Text Resource",
      description: "A static text resource for testing",
      mimeType: "text/plain"
    },
    read: () =>
      Effect.succeed({
        contents: [{
          uri: "test://static-text",
          mimeType: "text/plain",
          text: "This is the content of the static text resource."
        }]
      })
  },
  {
    listing: {
      uri: "test://static-binary",
      name: "static-binary",
      title: "Static Binary Resource",
      description: "A static binary resource (image) for testing",
      mimeType: "image/png"
    },
    read: () =>
      Effect.succeed({ contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: RED_PIXEL_PNG }] })
  }
]

export const FIXTURE_TEMPLATES: ReadonlyArray<HostResourceTemplate> = [
  {
    listing: {
      uriTemplate: "test://template/{id}/data",
      name: "template",
      title: "Resource Template",
      description: "A resource template with parameter substitution",
      mimeType: "application/json"
    },
    read: (uri, variables) =>
      Effect.succeed({
        contents: [{
          uri,
          mimeType: "application/json",
          text: JSON.stringify({ id: variables["id"], templateTest: true, data: `Data for ID: ${variables["id"]}` })
        }]
      }),
    complete: (argument) => (argument === "id" ? ["1", "2", "123"] : [])
  }
]
