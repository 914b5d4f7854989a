import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
// @ts-expect-error: a plain ESM script without declarations
import { inputsDigest, upToDate, writeStamp } from "../../scripts/build-stamp.mjs"
import { tempHome } from "../support/TestServer.ts"

const ROOT = join(import.meta.dirname, "..", "..")

/** A tree laid out like the repository, with a file of each kind of input. */
const fakeRoot = () => {
  const root = tempHome("dbdesk-build-stamp-")
  mkdirSync(join(root, "src", "ui"), { recursive: true })
  writeFileSync(join(root, "src", "ui", "App.tsx"), "export const App = () => null\n")
  writeFileSync(join(root, "package.json"), "{}")
  writeFileSync(join(root, "vite.config.ts"), "export default {}\n")
  return root
}

describe("npm start builds only what changed since the last build", () => {
  it("npm start's build step is the incremental one", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
    expect(manifest.scripts.prestart).toBe("node scripts/build.mjs --if-changed app ui")
  })

  it("a part is up to date only with its output present and a stamp of the same inputs; any edited, added or config file changes the digest", () => {
    const root = fakeRoot()
    const first = inputsDigest(root, "ui")
    expect(inputsDigest(root, "ui")).toBe(first)
    expect(upToDate(root, "ui", first)).toBe(false)
    writeStamp(root, "ui", first)
    expect(upToDate(root, "ui", first)).toBe(false)
    mkdirSync(join(root, "dist", "ui"), { recursive: true })
    writeFileSync(join(root, "dist", "ui", "index.html"), "<html></html>")
    expect(upToDate(root, "ui", first)).toBe(true)

    writeFileSync(join(root, "src", "ui", "App.tsx"), "export const App = () => 1\n")
    const edited = inputsDigest(root, "ui")
    expect(edited).not.toBe(first)
    expect(upToDate(root, "ui", edited)).toBe(false)
    writeFileSync(join(root, "src", "ui", "New.tsx"), "")
    expect(inputsDigest(root, "ui")).not.toBe(edited)
    const beforeConfig = inputsDigest(root, "ui")
    writeFileSync(join(root, "vite.config.ts"), "export default { base: './' }\n")
    expect(inputsDigest(root, "ui")).not.toBe(beforeConfig)
    // vite.config.ts is no input of the programs.
    const app = inputsDigest(root, "app")
    writeFileSync(join(root, "vite.config.ts"), "export default {}\n")
    expect(inputsDigest(root, "app")).toBe(app)
  })

  it("right after a build of the programs (this run's global setup), --if-changed leaves dist/app as it is", () => {
    const cli = join(ROOT, "dist", "app", "cli.js")
    const before = statSync(cli).mtimeMs
    const output = execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-changed", "app"], {
      cwd: ROOT,
      encoding: "utf8"
    })
    expect(output).toBe("build app: up to date (no input changed since its last build)\n")
    expect(statSync(cli).mtimeMs).toBe(before)
  })
})
