import * as esbuild from "esbuild"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

// D-76: `serve` loads what its first request needs; the UI server, the search client, the PostgreSQL and
// MySQL clients and the activity-chain verifier load on first use. Read from the bundle's own module graph: the
// modules reachable from the CLI entry and the serve handler through static imports only.
const ROOT = join(import.meta.dirname, "..", "..")

const startPath = async (): Promise<ReadonlySet<string>> => {
  const { metafile } = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { cli: "src/main.ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    outdir: join(ROOT, "dist", "start-path-check"),
    write: false,
    metafile: true,
    logLevel: "silent",
    external: ["better-sqlite3", "yaml", "toml", "ini", "cpu-features", "*.node"]
  })
  const outputs = metafile.outputs
  const entry = (pattern: RegExp) => Object.keys(outputs).find((key) => pattern.test(key))!
  const seen = new Set<string>()
  const stack = [entry(/\/cli\.js$/), entry(/\/Serve-[^/]*\.js$/)]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    for (const imported of outputs[file]!.imports) {
      if (imported.kind === "import-statement" && !imported.external) stack.push(imported.path)
    }
  }
  return new Set([...seen].flatMap((file) => Object.keys(outputs[file]!.inputs)))
}

describe("what dbdesk serve loads at start (D-76)", () => {
  it(
    "the serve handler and the MCP pipeline, but not the UI server, the search client, pg, mysql2, ssh2, ssh-config or the chain verifier",
    async () => {
      const loaded = [...await startPath()]
      expect(loaded).toContain("src/cli/handlers/Serve.ts")
      expect(loaded).toContain("src/http/Server.ts")
      const deferred = [
        /node_modules\/undici\//,
        /node_modules\/pg\//,
        /node_modules\/mysql2\//,
        /node_modules\/ssh2\//,
        /node_modules\/ssh-config\//,
        /^src\/search\/SearchClient\.ts$/,
        /^src\/http\/ui\/UiApp\.ts$/,
        /^src\/services\/activity\/ChainVerifier\.ts$/,
        /^src\/services\/drivers\/(Postgres|Mysql|Search)Driver\.ts$/
      ]
      expect(deferred.flatMap((pattern) => loaded.filter((input) => pattern.test(input)))).toEqual([])
    },
    60_000
  )
})
