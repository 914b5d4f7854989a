import { startTestServer, type TestServer } from "../TestServer.ts"
import { FIXTURE_PROMPTS, FIXTURE_RESOURCES, FIXTURE_TEMPLATES } from "./FixtureCatalog.ts"
import { FIXTURE_TOOLS } from "./FixtureTools.ts"

/**
 * dbdesk embedded with the conformance suite's fixtures (a test-only host, never shipped): every
 * built-in layer, plus the suite's tools, prompts, resources and template through the embedding
 * extension points. The suite has no way to send a token, so authentication is off, as a user
 * may set it (`mcp.requireAuth: false`).
 */
export const startConformanceHost = (): Promise<TestServer> =>
  startTestServer({
    ui: false,
    settings: { mcp: { requireAuth: false }, limits: { requestsPerMinute: 100_000, concurrentPerCaller: 64 } },
    extraTools: FIXTURE_TOOLS,
    extraPrompts: FIXTURE_PROMPTS,
    extraResources: FIXTURE_RESOURCES,
    extraResourceTemplates: FIXTURE_TEMPLATES
  })
