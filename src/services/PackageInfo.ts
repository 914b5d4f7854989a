import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

let found: { readonly root: string; readonly version: string } | undefined

/**
 * dbdesk's own package directory and version, found by walking up from this module to the package.json named
 * "dbdesk": the same code runs from `src/services/` (tests, tsx) and from a bundle chunk in `dist/` of the installed
 * package (D-76), where a fixed relative path would miss.
 */
const packageInfo = () => {
  if (found !== undefined) return found
  let directory = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name?: string
        version?: string
      }
      if (pkg.name === "dbdesk" && typeof pkg.version === "string") {
        return (found = { root: directory, version: pkg.version })
      }
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(directory)
    if (parent === directory) {
      throw new Error(`dbdesk's package.json was not found above ${fileURLToPath(import.meta.url)}`)
    }
    directory = parent
  }
}

export const packageVersion = (): string => packageInfo().version

/** The package's directory: `dist/ui` (the built UI) lives there. */
export const packageRoot = (): string => packageInfo().root
