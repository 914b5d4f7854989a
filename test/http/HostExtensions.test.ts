import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { afterAll, beforeAll } from "vitest"
import { matchUriTemplate } from "../../src/services/resources/HostCatalog.ts"
import { FIXTURE_PROMPTS, FIXTURE_RESOURCES, FIXTURE_TEMPLATES } from "../support/conformance/FixtureCatalog.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    ui: false,
    settings: { mcp: { requireAuth: false } },
    extraPrompts: FIXTURE_PROMPTS,
    extraResources: FIXTURE_RESOURCES,
    extraResourceTemplates: FIXTURE_TEMPLATES
  })
})
afterAll(() => server.stop())

const call = (method: string, params: Record<string, unknown> = {}) =>
  postMcp(server.url, modernRequest(method, params))

describe("an embedding host's prompts, resources and templates (extension points)", () => {
  it("are listed after dbdesk's own, read and completed through the same methods, with dbdesk's envelope and cache hints", async () => {
    const prompts = await call("prompts/list")
    const names = prompts.json.result.prompts.map((prompt: any) => prompt.name)
    expect(names.slice(0, 5)).toStrictEqual([
      "data_quality_audit",
      "explain_schema",
      "explain_table",
      "question_to_sql",
      "search_collection"
    ])
    expect(names.slice(5)).toStrictEqual([
      "test_simple_prompt",
      "test_prompt_with_arguments",
      "test_prompt_with_embedded_resource",
      "test_prompt_with_image",
      "test_input_required_result_prompt"
    ])
    const got = await call("prompts/get", { name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } })
    expect(got.json.result.messages[0].content.text).toBe("Prompt with arguments: arg1='a', arg2='b'")
    expect(got.json.result.resultType).toBe("complete")
    const missing = await call("prompts/get", { name: "test_prompt_with_arguments", arguments: { arg1: "a" } })
    expect([missing.status, missing.json.error.code]).toStrictEqual([400, -32602])

    const resources = (await call("resources/list")).json.result.resources.map((resource: any) => resource.uri)
    expect(resources[0]).toBe("dbdesk://connections")
    expect(resources.slice(-2)).toStrictEqual(["test://static-text", "test://static-binary"])
    const templates = (await call("resources/templates/list")).json.result.resourceTemplates.map((template: any) =>
      template.uriTemplate
    )
    expect(templates.at(-1)).toBe("test://template/{id}/data")
    const read = await call("resources/read", { uri: "test://template/a%20b/data" })
    expect(JSON.parse(read.json.result.contents[0].text)).toStrictEqual({
      id: "a b",
      templateTest: true,
      data: "Data for ID: a b"
    })
    expect([read.json.result.ttlMs, read.json.result.cacheScope]).toStrictEqual([5000, "private"])
    const unknown = await call("resources/read", { uri: "test://nothing" })
    expect([unknown.status, unknown.json.error.code]).toStrictEqual([400, -32602])

    const completed = await call("completion/complete", {
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "pa" }
    })
    expect(completed.json.result.completion).toStrictEqual({
      values: ["paris", "park", "party"],
      total: 3,
      hasMore: false
    })
    const byTemplate = await call("completion/complete", {
      ref: { type: "ref/resource", uri: "test://template/{id}/data" },
      argument: { name: "id", value: "1" }
    })
    expect(byTemplate.json.result.completion.values).toStrictEqual(["1", "123"])
  })

  it("a host cannot replace a built-in prompt or use dbdesk's own URI scheme", async () => {
    const clash = startTestServer({
      ui: false,
      extraPrompts: [{ ...FIXTURE_PROMPTS[0]!, listing: { name: "explain_schema" } }]
    })
    await expect(clash).rejects.toThrow("A host prompt may not replace the built-in prompt explain_schema")
    const scheme = startTestServer({
      ui: false,
      extraResources: [{ ...FIXTURE_RESOURCES[0]!, listing: { uri: "dbdesk://connections/x", name: "x" } }]
    })
    await expect(scheme).rejects.toThrow("A host resource may not use dbdesk's own scheme: dbdesk://connections/x")
  })

  it.prop("a level-1 template gives back the segments a URI was built from", [
    FastCheck.array(FastCheck.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 })
  ], ([segments]) => {
    const template = `test://x/${segments.map((_, index) => `{v${index}}`).join("/")}/end`
    const uri = `test://x/${segments.map((segment) => encodeURIComponent(segment)).join("/")}/end`
    expect(matchUriTemplate(template, uri)).toStrictEqual(
      Object.fromEntries(segments.map((segment, index) => [`v${index}`, segment]))
    )
    expect(matchUriTemplate(template, `${uri}/more`)).toBeUndefined()
  })
})
