import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { modernRequest, postMcp, startTestServer } from "../support/TestServer.ts"

const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")
const verify = (home: string) => {
  const result = spawnSync(process.execPath, [bin, "activity", "verify", "--home", home], { encoding: "utf8", timeout: 60_000 })
  return { code: result.status, output: `${result.stdout}${result.stderr}` }
}

describe("dbdesk activity verify (product-decisions §6)", () => {
  it("PD6 passes on a log written by a real server run, and fails naming the row after one is edited", async () => {
    const server = await startTestServer({ token: "readOnly" })
    for (let i = 0; i < 5; i++) {
      await postMcp(server.url, modernRequest("tools/call", { name: "list_connections", arguments: {} }, i), { authorization: `Bearer ${server.token}` })
    }
    await server.stop()
    const intact = verify(server.home)
    expect(intact.code).toBe(0)
    expect(intact.output).toMatch(/activity log intact: \d+ rows/)

    const db = new Database(join(server.home, "activity.db"))
    const target = db.prepare("SELECT seq FROM activity WHERE category = 'tool' ORDER BY seq LIMIT 1 OFFSET 2").get() as { seq: number }
    db.prepare("UPDATE activity SET outcome = 'denied' WHERE seq = ?").run(target.seq)
    db.close()
    const edited = verify(server.home)
    expect(edited.code).toBe(1)
    expect(edited.output).toContain(`row ${target.seq} (`)
    expect(edited.output).toContain("was edited")
  })
})
