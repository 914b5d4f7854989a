import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ACTIVITY_FIELDS } from "../../src/domain/Activity.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"

const bin = join(import.meta.dirname, "../../bin/dbdesk.mjs")
const verify = (home: string) => {
  const result = spawnSync(process.execPath, [bin, "activity", "verify", "--home", home], {
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status, output: `${result.stdout}${result.stderr}` }
}

describe("dbdesk activity verify (D-51)", () => {
  it("PD6 passes on a log written by a real server run, and fails naming the row after one is edited", async () => {
    const server = await startTestServer({ token: "readOnly" })
    for (let i = 0; i < 5; i++) {
      await postMcp(server.url, modernRequest("tools/call", { name: "list_connections", arguments: {} }, i), {
        authorization: `Bearer ${server.token}`
      })
    }
    await server.stop()
    const intact = verify(server.home)
    expect(intact.code).toBe(0)
    expect(intact.output).toMatch(/activity log intact: \d+ rows/)

    const db = new Database(join(server.home, "activity.db"))
    const target = db.prepare("SELECT seq FROM activity WHERE category = 'tool' ORDER BY seq LIMIT 1 OFFSET 2")
      .get() as { seq: number }
    db.prepare("UPDATE activity SET outcome = 'denied' WHERE seq = ?").run(target.seq)
    db.close()
    const edited = verify(server.home)
    expect(edited.code).toBe(1)
    expect(edited.output).toContain(`row ${target.seq} (`)
    expect(edited.output).toContain("was edited")
  })
})

/** The column a field is stored in (camelCase to snake_case, as the store names them). */
const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

describe("dbdesk activity verify names a row whatever hashed field of it was edited (D-51)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ token: "readOnly" })
    for (let i = 0; i < 5; i++) {
      await postMcp(server.url, modernRequest("tools/call", { name: "list_connections", arguments: {} }, i), {
        authorization: `Bearer ${server.token}`
      })
    }
    await server.stop()
    expect(verify(server.home).code).toBe(0)
  }, 60_000)

  // Every field but the hash itself is hashed: each is edited in turn, on a copy of the same log.
  it.each(ACTIVITY_FIELDS.filter((field) => field !== "hash"))(
    "PD6 an edit of %s is found and the row named",
    (field) => {
      const home = mkdtempSync(join(tmpdir(), "dbdesk-verify-"))
      cpSync(server.home, home, { recursive: true })
      const db = new Database(join(home, "activity.db"))
      const column = columnOf(field)
      const target = db.prepare(
        `SELECT seq, ${column} AS value FROM activity WHERE category = 'tool' ORDER BY seq LIMIT 1 OFFSET 2`
      ).get() as { seq: number; value: unknown }
      const edited = field === "seq" ?
        target.seq + 1000
        : typeof target.value === "number" ?
        target.value + 1
        : field === "at" ?
        new Date(Date.parse(String(target.value)) + 1000).toISOString()
        : `${String(target.value ?? "")}-edited`
      expect(db.prepare(`UPDATE activity SET ${column} = ? WHERE seq = ?`).run(edited, target.seq).changes).toBe(1)
      db.close()
      const result = verify(home)
      expect(result.code, result.output).toBe(1)
      expect(result.output).toContain(`row ${target.seq} `)
      if (field !== "seq") expect(result.output).toContain("was edited")
    }
  )
})
