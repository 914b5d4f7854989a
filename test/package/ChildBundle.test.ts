import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

// D-76: the SQLite child is plain built JavaScript loading better-sqlite3 and its message protocol only.
// A value imported from a module that uses effect (an error class, a Schema) pulls the whole runtime into the child:
// 487 KB and ~100 ms of CPU more at every connection's start when it happened (D-64 together).
const CHILD = join(import.meta.dirname, "..", "..", "dist", "app", "sqlite-child.js")

describe("the SQLite child's bundle (D-76)", () => {
  it("is small and carries neither effect nor fast-check", () => {
    expect(statSync(CHILD).size).toBeLessThan(100_000)
    const text = readFileSync(CHILD, "utf8")
    // markers that survive minification: effect's fiber runtime and fast-check's own names
    expect(text).not.toMatch(/effect\/Fiber|FiberRuntime|fast-check|pure-rand/)
  })
})
