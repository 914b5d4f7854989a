import { execFileSync } from "node:child_process"
import { join } from "node:path"

/**
 * vitest globalSetup: the CLI and bridge tests spawn bin/dbdesk.mjs and bin/dbdesk-mcp.mjs, which run the built
 * dist/app (D-76); building it once per run (esbuild, about a second) keeps them on the current sources.
 */
export default function setup() {
  const root = join(import.meta.dirname, "..", "..")
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs"), "app"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
}
