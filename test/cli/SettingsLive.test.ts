// D-11: settings.json edited while `dbdesk serve` runs is applied without restart; an edit that is not
// valid keeps the settings in force, and the terminal and the activity log say why.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { eventually } from "../support/RawHttp.ts"
import { type ServeProcess, startServe } from "../support/ServeProcess.ts"
import { modernRequest, postMcp, tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

let running: ServeProcess | undefined
afterEach(() => running?.stop())

const discover = (url: string) => postMcp(url, modernRequest("server/discover"))

describe("settings.json edits while serve runs (D-11)", () => {
  it(
    "C8-f an edit of limits.requestsPerMinute applies at once; a bad edit keeps it and says why on stderr and in the activity log",
    async () => {
      const home = tempHome()
      running = await startServe(home)
      const file = join(home, "settings.json")
      const settings = JSON.parse(readFileSync(file, "utf8"))
      writeFileSync(file, JSON.stringify({ ...settings, limits: { ...settings.limits, requestsPerMinute: 3 } }))
      await eventually(
        () => running!.output().includes("limits.requestsPerMinute applied"),
        10_000,
        "the edit announced on stderr"
      )
      const statuses = []
      for (let i = 0; i < 4; i++) statuses.push((await discover(running.url)).status)
      expect(statuses).toEqual([200, 200, 200, 429])

      writeFileSync(file, JSON.stringify({ ...settings, limits: { ...settings.limits, requestsPerMinute: "many" } }))
      await eventually(
        () => running!.output().includes("is not valid, so the previous settings stay in force"),
        10_000,
        "the refusal on stderr"
      )
      expect(running.output()).toMatch(
        /settings\.json was edited but is not valid, so the previous settings stay in force: [\s\S]*requestsPerMinute/
      )
      expect((await discover(running.url)).status).toBe(429)
      const rows = async () =>
        JSON.parse((await runInProcess("activity", "list", "--since", "1h", "--json", "--home", home)).stdout) as Array<
          any
        >
      let found: Array<any> = []
      for (let attempt = 0; attempt < 100 && !found.some((row) => row.action === "settings.rejected"); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100))
        found = await rows()
      }
      expect(found.find((row) => row.action === "settings.applied")).toMatchObject({
        category: "server",
        outcome: "success",
        details: "changed=limits.requestsPerMinute"
      })
      expect(found.find((row) => row.action === "settings.rejected")).toMatchObject({
        category: "server",
        outcome: "error"
      })
      expect(found.find((row) => row.action === "settings.rejected").details).toContain("requestsPerMinute")
    },
    60_000
  )
})
