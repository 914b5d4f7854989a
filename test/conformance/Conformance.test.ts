import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startConformanceHost } from "../support/conformance/FixtureHost.ts"
import { failuresOf, runSuite, type SuiteRun } from "../support/conformance/Suite.ts"
import { ensureInstalled, node22, SUITE_PRERELEASE, SUITE_RELEASE } from "../support/conformance/ToolCache.ts"
import type { TestServer } from "../support/TestServer.ts"

/**
 * The official MCP conformance suite against dbdesk embedded with the suite's fixtures
 * (test/support/conformance). Every failure must be one of the deliberate differences of
 * docs/conformance.md, and every deliberate difference must still fail (so the list stays true).
 */
const ORIGIN = "dns-rebinding-protection/localhost-host-valid-accepted"
const LEGACY_DIFFERENCES = [
  ORIGIN,
  // No server-to-client request in a legacy session: a POSTed JSON-RPC response is -32600 (C4.1-h).
  "elicitation-sep1034-defaults/elicitation-sep1034-general",
  "elicitation-sep1330-enums/elicitation-sep1330-general",
  "tools-call-elicitation/tools-call-elicitation",
  "tools-call-sampling/tools-call-sampling",
  // No log notifications: a call without a progressToken gets plain JSON (C4.1-i).
  "tools-call-with-logging/tools-call-with-logging",
  // Legacy clients see resources.subscribe: false (§9 point 4): resources/subscribe is -32601.
  "resources-subscribe/resources-subscribe",
  "resources-unsubscribe/resources-unsubscribe"
]

let host: TestServer
beforeAll(async () => {
  await Promise.all([
    node22(),
    ensureInstalled(`conformance-${SUITE_RELEASE}`, [`@modelcontextprotocol/conformance@${SUITE_RELEASE}`]),
    ensureInstalled(`conformance-${SUITE_PRERELEASE}`, [`@modelcontextprotocol/conformance@${SUITE_PRERELEASE}`])
  ])
  host = await startConformanceHost()
}, 600_000)
afterAll(() => host?.stop())

const report = (run: SuiteRun) => `${run.total}\n${failuresOf(run).join("\n")}`

describe("the official MCP conformance suite against the fixture host", () => {
  it(`release ${SUITE_RELEASE}: every scenario passes except the deliberate legacy differences`, async () => {
    const run = await runSuite(SUITE_RELEASE, host.url)
    expect(run.scenarios).toHaveLength(30)
    expect(failuresOf(run), report(run)).toStrictEqual([
      ...LEGACY_DIFFERENCES,
      // 0.1.16 sends MCP-Protocol-Version 2025-03-26 inside a session; 2025-03-26 is refused (§9 point 1).
      "server-sse-multiple-streams/server-accepts-multiple-post-streams"
    ].sort())
  }, 300_000)

  it(
    `prerelease ${SUITE_PRERELEASE} --requirements 2025-11-25: the same legacy differences, nothing else`,
    async () => {
      const run = await runSuite(SUITE_PRERELEASE, host.url, ["--requirements", "2025-11-25"])
      expect(run.scenarios).toHaveLength(33)
      expect(failuresOf(run), report(run)).toStrictEqual([...LEGACY_DIFFERENCES].sort())
    },
    300_000
  )

  it(
    `prerelease ${SUITE_PRERELEASE} --requirements 2026-07-28: content, progress, input_required and stateless checks pass; only the deliberate differences fail`,
    async () => {
      const run = await runSuite(SUITE_PRERELEASE, host.url, ["--requirements", "2026-07-28"])
      expect(run.scenarios).toHaveLength(50)
      const failures = failuresOf(run)
      // The optional tasks extension is not offered (not scored for 2026-07-28 by the suite itself).
      expect(failures.filter((failure) => failure.startsWith("tasks-lifecycle/")).length, report(run)).toBeGreaterThan(
        0
      )
      expect(failures.filter((failure) => !failure.startsWith("tasks-")), report(run)).toStrictEqual([
        ORIGIN,
        // Pending in the suite (not scored): Mcp-Param-* is validated only when sent (C4.2-e), and a value that
        // starts like a =?base64?…?= wrapper but is not one is malformed, -32020 (C4.2-g).
        "http-custom-header-server-validation/sep-2243-server-reject-param-mismatch",
        "http-custom-header-server-validation/sep-2243-server-validate-param-match"
      ])
      for (
        const scenario of [
          "tools-call-image",
          "tools-call-audio",
          "tools-call-embedded-resource",
          "tools-call-with-progress",
          "input-required-result-multi-round",
          "input-required-result-tampered-state",
          "server-stateless",
          "http-header-validation",
          "caching",
          "json-schema-2020-12"
        ]
      ) {
        expect(
          run.checks.filter((check) => check.scenario === scenario && check.status === "SUCCESS").length,
          `${scenario} passed nothing`
        ).toBeGreaterThan(0)
      }
    },
    300_000
  )
})
