import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { exportDirectory } from "../../src/services/Exporter.ts"

// D-92: where an MCP export may land: the setting's folder, else Downloads, else the home folder; never created.
describe("the export folder (D-92)", () => {
  const home = process.env["HOME"]
  afterEach(() => {
    process.env["HOME"] = home
  })

  it("D-92 an empty setting is the home folder's Downloads when it exists, else the home folder itself", async () => {
    const bare = mkdtempSync(join(tmpdir(), "dbdesk-home-"))
    process.env["HOME"] = bare
    expect(await Effect.runPromise(exportDirectory(""))).toBe(bare)
    mkdirSync(join(bare, "Downloads"))
    expect(await Effect.runPromise(exportDirectory(""))).toBe(join(bare, "Downloads"))
  })

  it("D-92 a folder that does not exist, or a file, is refused in plain words and nothing is created", async () => {
    const root = mkdtempSync(join(tmpdir(), "dbdesk-exportdir-"))
    writeFileSync(join(root, "file"), "")
    for (const setting of [join(root, "missing"), join(root, "file")]) {
      const exit = await Effect.runPromiseExit(exportDirectory(setting))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.stringify(exit)).toContain("does not exist or is not a folder; choose one in Settings")
    }
    expect(await Effect.runPromise(exportDirectory(root))).toBe(root)
  })
})
