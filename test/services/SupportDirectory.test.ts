import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { ensureSupportDirectory } from "../../src/services/SupportDirectory.ts"

describe("support directory (Writes killed mid-way)", () => {
  it("temporary files of atomic writes older than a minute are removed at open; fresh ones and other files stay", async () => {
    const directory = mkdtempSync(join(tmpdir(), "dbdesk-support-"))
    const old = [
      ".tokens.json.0a1b2c3d4e5f.tmp",
      ".connections.json.ffffffffffff.tmp",
      "sample.db.3f2a6c1e-0b8d-4c36-9d7e-5a1f2b3c4d5e.tmp"
    ]
    const kept = [".settings.json.0123456789ab.tmp", "tokens.json", "notes.tmp", ".x.tmp"]
    for (const name of [...old, ...kept]) writeFileSync(join(directory, name), "{")
    const twoMinutesAgo = new Date(Date.now() - 120_000)
    for (const name of [...old, "tokens.json", "notes.tmp", ".x.tmp"]) {
      utimesSync(join(directory, name), twoMinutesAgo, twoMinutesAgo)
    }
    await Effect.runPromise(ensureSupportDirectory(directory))
    expect(readdirSync(directory).sort()).toEqual([...kept].sort())
  })
})
