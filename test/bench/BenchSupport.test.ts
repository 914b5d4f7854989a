import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

// `npm run bench` runs outside vitest and starts its databases through test/support: a harness that imports vitest
// (directly or through a helper) kills the bench at import, which no test run noticed after a merge.
const ROOT = join(import.meta.dirname, "..", "..")

const benchSupportImports = (): Array<string> => {
  const files = readdirSync(join(ROOT, "bench"), { recursive: true, encoding: "utf8" }).filter((file) =>
    file.endsWith(".ts")
  )
  const found = new Set<string>()
  for (const file of files) {
    for (
      const match of readFileSync(join(ROOT, "bench", file), "utf8").matchAll(
        /from "((?:\.\.\/)+test\/support\/[^"]+)"/g
      )
    ) {
      found.add(join(ROOT, "bench", file, "..", match[1]!))
    }
  }
  return [...found].sort()
}

describe("what the bench loads from test/support", () => {
  it("loads outside vitest", () => {
    const modules = benchSupportImports()
    expect(modules.length).toBeGreaterThan(2)
    const script = modules.map((path) => `await import(${JSON.stringify(path)})`).join(";")
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000
    })
    expect(run.status, run.stderr).toBe(0)
  }, 90_000)
})
