import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

let cached: string | undefined

/**
 * The version in dbdesk's own package.json, found by walking up from this module: the same code runs from
 * `src/services/` (tests, tsx) and from a bundle chunk in `dist/` of the installed package (issue 23).
 */
export const packageVersion = (): string => {
  if (cached !== undefined) return cached
  let directory = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { name?: string; version?: string }
      if (pkg.name === "dbdesk" && typeof pkg.version === "string") return (cached = pkg.version)
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(directory)
    if (parent === directory) throw new Error("dbdesk's package.json was not found above " + fileURLToPath(import.meta.url))
    directory = parent
  }
}
