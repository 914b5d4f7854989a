// D-64: the in-process server in front of a connection under test, one token per access level, and the
// scan every answer goes through: no known secret value (in any of the forms a shape may print it) may appear.
import { Context, Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { modernRequest, postMcp, type RawResponse, startTestServer, tempHome, type TestServer } from "./TestServer.ts"

export const LEVELS: ReadonlyArray<AccessLevel> = ["readOnly", "readWrite", "fullAccess"]

export interface CorpusServer {
  readonly server: TestServer
  readonly call: (level: AccessLevel, tool: string, args: Record<string, unknown>) => Promise<RawResponse>
  readonly request: (level: AccessLevel, method: string, params: Record<string, unknown>) => Promise<RawResponse>
  /** Every activity row's details, for the check that none holds a value. */
  readonly activityDetails: () => Promise<ReadonlyArray<string>>
  readonly stop: () => Promise<void>
}

/** `connections` are written to connections.json as given (AI policy alwaysAllow, writes approved by a scripted dialog). */
export const startCorpusServer = async (
  connections: ReadonlyArray<Record<string, unknown>>,
  options: { readonly ui?: boolean } = {}
): Promise<CorpusServer> => {
  const home = tempHome()
  writeFileSync(join(home, "connections.json"), JSON.stringify({ version: 1, connections }), { mode: 0o600 })
  const server = await startTestServer({
    home,
    settings: {
      limits: { requestsPerMinute: 1_000_000, concurrentPerCaller: 64 },
      ...(options.ui === true ? { ui: { port: 0 } } : {})
    },
    approvalPrompt: ApprovalPrompt.scripted(() => "approved")
  })
  const run = <A, E>(effect: Effect.Effect<A, E, Tokens | ActivityLog>) =>
    Effect.runPromise(Effect.provide(effect, server.context as Context.Context<Tokens | ActivityLog>))
  const tokens = new Map<AccessLevel, string>()
  for (const level of LEVELS) {
    tokens.set(
      level,
      (await run(
        Effect.flatMap(Tokens, (store) => store.create({ name: `corpus ${level}`, access: level, connections: "all" }))
      )).value
    )
  }
  const request = (level: AccessLevel, method: string, params: Record<string, unknown>) =>
    postMcp(server.url, modernRequest(method, params), { authorization: `Bearer ${tokens.get(level)}` })
  return {
    server,
    request,
    call: (level, tool, args) => request(level, "tools/call", { name: tool, arguments: args }),
    activityDetails: async () =>
      (await run(Effect.flatMap(ActivityLog, (log) => Effect.zipRight(log.flush, log.list({ limit: 10_000 }))))).map((
        row
      ) => `${row.subject ?? ""} ${row.details ?? ""}`),
    stop: () => server.stop()
  }
}

/** A secret as a shape may print it: as stored, upper- or lower-cased, as hex (a bytea cast), as base64. */
export const secretForms = (value: string): ReadonlyArray<string> => {
  const bytes = Buffer.from(value, "utf8")
  return [
    ...new Set([value, value.toUpperCase(), value.toLowerCase(), bytes.toString("hex"), bytes.toString("base64")])
  ]
}

/** The answer holds none of the secrets (the message names the secret's index, never the secret). */
export const expectNoSecret = (text: string, secrets: ReadonlyArray<string>, what: string): void => {
  secrets.forEach((secret, index) =>
    expect(text.includes(secret), `${what}: secret #${index} reached the answer`).toBe(false)
  )
}

/** A refusal by the connection's AI settings: a tool error `denied:` naming the setting, or -33007 with the gate. */
export const policyRefusalOf = (
  answer: RawResponse
): { readonly gate: string; readonly setting: string } | undefined => {
  const error = answer.json?.result?.structuredContent?.error
  if (answer.json?.result?.isError === true && error?.code === "denied" && error.policy !== undefined) {
    return error.policy
  }
  const data = answer.json?.error?.data
  return answer.json?.error?.code === -33007 && typeof data?.rule === "string"
    ? { gate: data.reason, setting: data.setting }
    : undefined
}

export type SecretStop = "names" | "origins" | "classifier"

/**
 * A secret-catalog shape's answer (D-64): no secret in it; refused by the classifier, or by the AI settings
 * (a readOnly token may be stopped earlier by its scope, for statements classified as writes); and it reached the
 * database exactly when it was stopped on its origins (`ran`: whether the server's statement log shows its marker).
 */
export const expectSecretShape = (
  answer: RawResponse,
  shape: string,
  stop: SecretStop,
  secrets: ReadonlyArray<string>,
  level: AccessLevel,
  ran: (refused: boolean) => boolean
): void => {
  expectNoSecret(answer.text, secrets, shape)
  if (stop === "classifier") {
    expect(answer.json.result?.content?.[0]?.text ?? "").toMatch(
      /^denied: this statement reads or writes files or runs code/
    )
  } else if (answer.json.error?.code !== -33007 || level !== "readOnly") {
    expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "secret_catalog", setting: "secretCatalogs" })
  }
  const refused = policyRefusalOf(answer) !== undefined
  expect(
    ran(refused),
    `${shape} ${stop === "origins" ? "runs and is refused on its origins" : "never reaches the server"}`
  ).toBe(stop === "origins" && refused)
}

/** A masking-rule shape's answer (D-65) that is refused: the untraceable gate, naming the setting. */
export const expectUntraceable = (answer: RawResponse, shape: string, secrets: ReadonlyArray<string>): void => {
  expectNoSecret(answer.text, secrets, shape)
  expect(policyRefusalOf(answer), answer.text).toMatchObject({ gate: "untraceable", setting: "maskingRules" })
}
