import { Context, Effect, Either } from "effect"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseSince } from "../../src/cli/handlers/Activity.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { modernRequest, postMcp, startTestServer, tempHome, type TestServer } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

/** Literal copy of the export columns (D-51 export order), pinned here rather than read from the source. */
const COLUMNS =
  "seq,at,category,action,outcome,tokenId,tokenName,clientName,clientVersion,clientTitle,address,connectionId,subject,durationMs,digest,details,traceparent,tracestate,baggage,prevHash,hash"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ ui: false, token: "readOnly" })
  const call = (client: string, id: number) =>
    postMcp(
      server.url,
      modernRequest("tools/call", {
        name: "list_connections",
        arguments: {},
        _meta: { "io.modelcontextprotocol/clientInfo": { name: client, version: "1.0" } }
      }, id),
      {
        authorization: `Bearer ${server.token}`
      }
    )
  for (let id = 1; id <= 3; id++) await call("Claude Desktop", id)
  await call("Cursor", 4)
  await Effect.runPromise(Context.get(server.context, ActivityLog).flush)
})
afterAll(() => server.stop())

describe("dbdesk activity list|export", () => {
  it("list filters by client and time, newest first, as a table or JSON", async () => {
    const all = JSON.parse((await runInProcess("activity", "list", "--json", "--home", server.home)).stdout)
    const cursor = JSON.parse(
      (await runInProcess("activity", "list", "--json", "--client", "Cursor", "--home", server.home)).stdout
    )
    expect(cursor.map((entry: any) => [entry.category, entry.action, entry.subject, entry.clientName, entry.outcome]))
      .toStrictEqual([
        ["tool", "tool.call", "list_connections", "Cursor", "success"],
        ["auth", "auth.success", null, "Cursor", "success"]
      ])
    expect(all.filter((entry: any) => entry.clientName === "Claude Desktop" && entry.category === "tool")).toHaveLength(
      3
    )
    expect(all.map((entry: any) => entry.seq)).toStrictEqual(
      [...all.map((entry: any) => entry.seq)].sort((a: number, b: number) => b - a)
    )
    const future = await runInProcess("activity", "list", "--since", "2999-01-01", "--home", server.home)
    expect(future.stdout).toBe("No matching activity.\n")
    const text = await runInProcess(
      "activity",
      "list",
      "--since",
      "1h",
      "--client",
      "Claude Desktop",
      "--home",
      server.home
    )
    expect(text.stdout.split("\n")[0]).toMatch(
      /^AT\s+CATEGORY\s+ACTION\s+OUTCOME\s+CLIENT\s+TOKEN\s+SUBJECT\s+DURATION$/
    )
    expect(text.stdout.trim().split("\n")).toHaveLength(5)
    const bad = await runInProcess("activity", "list", "--since", "yesterday", "--home", server.home)
    expect([bad.code, bad.stderr]).toStrictEqual([
      1,
      "--since takes 30m, 24h, 7d, 2026-11-01 or an ISO time, not \"yesterday\"\n"
    ])
  })

  it("export writes CSV (the UI's columns) and JSON lines, oldest first, to stdout or atomically to a 0600 file", async () => {
    const csv = await runInProcess(
      "activity",
      "export",
      "--format",
      "csv",
      "--client",
      "Claude Desktop",
      "--home",
      server.home
    )
    const lines = csv.stdout.split("\r\n")
    expect(lines[0]).toBe(COLUMNS)
    expect(lines.slice(1, -1).map((line) => line.split(",").slice(2, 4).join(" "))).toStrictEqual([
      "auth auth.success",
      "tool tool.call",
      "tool tool.call",
      "tool tool.call"
    ])
    expect(lines.at(-1)).toBe("")
    const file = join(tempHome(), "activity.jsonl")
    const written = await runInProcess(
      "activity",
      "export",
      "--format",
      "jsonl",
      "--output",
      file,
      "--home",
      server.home
    )
    expect(written.code).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const rows = readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(Object.keys(rows[0]).join(",")).toBe(COLUMNS)
    expect(rows.map((row) => row.seq)).toStrictEqual([...rows.map((row) => row.seq)].sort((a, b) => a - b))
    expect(rows.filter((row) => row.category === "tool").map((row) => row.clientName)).toStrictEqual([
      "Claude Desktop",
      "Claude Desktop",
      "Claude Desktop",
      "Cursor"
    ])
  })

  it("a directory where the server never ran has no log, and says so", async () => {
    const run = await runInProcess("activity", "list", "--home", tempHome())
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^No activity log at .*activity\.db: the server has not run with this support directory\n$/
    )
  })

  it("--since reads minutes, hours, days, dates and instants", () => {
    const now = Date.parse("2026-11-25T12:00:00.000Z")
    expect(
      ["30m", "24h", "7d", "2026-11-01", "2026-11-01T08:30:00+01:00"].map((text) =>
        Either.getOrThrow(parseSince(text, now))
      )
    ).toStrictEqual([
      "2026-11-25T11:30:00.000Z",
      "2026-11-24T12:00:00.000Z",
      "2026-11-18T12:00:00.000Z",
      "2026-11-01T00:00:00.000Z",
      "2026-11-01T07:30:00.000Z"
    ])
    expect(Either.isLeft(parseSince("2026-13-45", now))).toBe(true)
  })
})
