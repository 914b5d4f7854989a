#!/usr/bin/env node
/**
 * `npm run build` (D-76): writes dist/ from the TypeScript sources.
 *
 *   node scripts/build.mjs [--if-changed] [app] [lib] [types] [ui]     (no part named: all four)
 *
 * --if-changed (what `npm start` uses): app and ui are built only when an input changed since their last build
 *                      (scripts/build-stamp.mjs); lib and types are always built.
 *
 * app    dist/app/    the programs: `cli.js` (bin/dbdesk.mjs), `bridge.js` (bin/dbdesk-mcp.mjs) and `sqlite-child.js`,
 *                      with their dependencies bundled in (esbuild, code-split: what a command loads lazily is its own
 *                      chunk). Only native better-sqlite3 stays a package import.
 * lib    dist/lib/    the library entries of `exports` (LIBRARY_ENTRIES), every package left external so an embedding
 *                      host shares one copy of effect with dbdesk.
 * types  dist/types/  .d.ts of the library entries (tsc, tsconfig.build.json).
 * ui     dist/ui/     the Vite UI (vite.config.ts), where the UI server looks for it.
 *
 * app and lib are written to a temporary directory and moved into place, so a test run that starts a bin while
 * another run rebuilds never sees half a build.
 */
import * as esbuild from "esbuild"
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { clearStamp, inputsDigest, STAMPED, upToDate, writeStamp } from "./build-stamp.mjs"

const ROOT = fileURLToPath(new URL("../", import.meta.url))
const DIST = join(ROOT, "dist")

/**
 * The child process of the SQLite driver. Every build that bundles SqliteDriver.ts carries it under this name, because
 * the driver forks `./sqlite-child.js` beside its own chunk.
 */
const SQLITE_CHILD = { "sqlite-child": "src/services/drivers/sqlite/child.ts" }

/**
 * The programs behind `bin`. The CLI is code-split (what a command or the server loads lazily is its own chunk); the
 * bridge and the SQLite child are single files: split together with the CLI, the bridge would load chunks shaped by
 * the CLI's needs (about 1 MB instead of 0.65 MB).
 */
const CLI_ENTRIES = { cli: "src/main.ts" }
const STANDALONE_ENTRIES = { bridge: "src/bridge/BridgeMain.ts", ...SQLITE_CHILD }

/**
 * The library's public entry points: name → source. Adding one: add it here, add `./<name>` to package.json
 * `exports` (types `./dist/types/<path>.d.ts`, import `./dist/lib/<name>.js`) and its source to tsconfig.build.json.
 */
const LIBRARY_ENTRIES = { index: "src/index.ts", domain: "src/domain/index.ts", search: "src/search/index.ts" }

/** Native or optional at run time: never bundled (better-sqlite3 finds its .node file from its own package). */
const NATIVE = ["better-sqlite3"]
/** ssh2's optional native speed-ups (unbuilt here): required inside try/catch, so left out and the pure-JS paths run. */
const OPTIONAL_NATIVE = ["cpu-features", "*.node"]

/**
 * @effect/cli imports three CommonJS parsers (yaml, toml, ini: 230 KB, about a seventh of what `serve` loads) for
 * Args/Options.fileParse, which dbdesk's commands do not use. The bins carry a stand-in that says so if one ever
 * reaches it; a command that wants file parsing drops this plugin.
 */
const unusedCliFileParsers = {
  name: "unused-cli-file-parsers",
  setup(build) {
    build.onResolve({ filter: /^(yaml|toml|ini)$/ }, (args) =>
      args.importer.includes("@effect/cli") ? { path: args.path, namespace: "unused-cli-file-parser" } : undefined)
    build.onLoad({ filter: /.*/, namespace: "unused-cli-file-parser" }, (args) => ({
      contents: `export const parse = () => { throw new Error("dbdesk's command line does not read ${args.path} files") }`,
      loader: "js"
    }))
  }
}

/**
 * effect's Schema imports its FastCheck module (fast-check and pure-rand, 72 KB) only to build arbitraries for property
 * tests, which the programs never do: about a twentieth of what `serve` parses at start. The bins carry a stand-in that
 * says so if anything ever reaches it.
 */
const unusedFastCheck = {
  name: "unused-fast-check",
  setup(build) {
    build.onResolve({ filter: /^\.\/FastCheck\.js$/ }, (args) =>
      /node_modules[\\/]effect[\\/]dist[\\/]esm[\\/]Schema\.js$/.test(args.importer) ? { path: "FastCheck", namespace: "unused-fast-check" } : undefined)
    build.onLoad({ filter: /.*/, namespace: "unused-fast-check" }, () => ({
      contents: "export const array = () => { throw new Error(\"dbdesk's programs do not generate arbitraries\") }",
      loader: "js"
    }))
  }
}

const shared = {
  absWorkingDir: ROOT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  logLevel: "warning",
  legalComments: "none",
  // No sourcemaps: the bundle keeps identifiers, so stack traces stay readable, and the tarball stays small.
  // DBDESK_BUILD_UNMINIFIED=1 keeps esbuild's `// src/…` module comments, which bench/profile.ts maps samples to.
  minifyWhitespace: process.env.DBDESK_BUILD_UNMINIFIED !== "1",
  minifySyntax: process.env.DBDESK_BUILD_UNMINIFIED !== "1"
}

/**
 * The licences of the packages a bundle carries (MIT and friends ask that their notice travel with every copy):
 * one file beside the bundle, from the metafile's inputs.
 */
const writeThirdPartyLicenses = (metafiles, directory) => {
  const packages = new Map()
  const carried = metafiles.flatMap((metafile) => Object.values(metafile.outputs)).flatMap((output) => Object.entries(output.inputs))
  for (const [input, { bytesInOutput }] of carried) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (match !== null && bytesInOutput > 0) packages.set(match[1], true)
  }
  const sections = [...packages.keys()].sort().map((relative) => {
    const dir = join(ROOT, relative)
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name))
    const text = file === undefined ? `(no licence file in the package; package.json says ${pkg.license})` : readFileSync(join(dir, file), "utf8").trim()
    return `## ${pkg.name} ${pkg.version} (${pkg.license})\n\n${text}\n`
  })
  writeFileSync(join(directory, "THIRD_PARTY_LICENSES.md"), `# Packages bundled into dist/app\n\n${sections.join("\n")}`)
}

/** Runs the esbuild builds into a fresh directory beside the target, then swaps it in. */
const buildInto = async (name, builds) => {
  const target = join(DIST, name)
  const temporary = join(DIST, `.${name}-${process.pid}`)
  rmSync(temporary, { recursive: true, force: true })
  try {
    const metafiles = []
    for (const options of builds) metafiles.push((await esbuild.build({ ...shared, ...options, outdir: temporary, metafile: true })).metafile)
    if (builds.some((options) => options.packages !== "external")) writeThirdPartyLicenses(metafiles, temporary)
    rmSync(target, { recursive: true, force: true })
    renameSync(temporary, target)
  } finally {
    rmSync(temporary, { recursive: true, force: true })
  }
}

const parts = {
  app: () => {
    const bundled = {
      external: [...NATIVE, ...OPTIONAL_NATIVE],
      plugins: [unusedCliFileParsers, unusedFastCheck],
      // Bundled CommonJS dependencies call require() for node: built-ins.
      banner: { js: "import { createRequire as __dbdeskCreateRequire } from \"node:module\"; const require = __dbdeskCreateRequire(import.meta.url);" }
    }
    return buildInto("app", [{ ...bundled, entryPoints: CLI_ENTRIES }, { ...bundled, entryPoints: STANDALONE_ENTRIES, splitting: false }])
  },
  lib: () => buildInto("lib", [{ entryPoints: { ...LIBRARY_ENTRIES, ...SQLITE_CHILD }, packages: "external" }]),
  types: () => {
    rmSync(join(DIST, "types"), { recursive: true, force: true })
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "tsconfig.build.json")], { stdio: "inherit" })
    if (tsc.status !== 0) throw new Error("tsc -p tsconfig.build.json failed")
  },
  ui: async () => {
    const { build } = await import("vite")
    await build({ configFile: join(ROOT, "vite.config.ts"), logLevel: "warn" })
  }
}

/** Every `exports` target must exist after a full build: a library entry added to one list and not the other fails here. */
const checkExports = () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
  const targets = Object.values(pkg.exports).flatMap((target) => (typeof target === "string" ? [target] : Object.values(target)))
  const missing = targets.filter((target) => !existsSync(join(ROOT, target)))
  if (missing.length > 0) throw new Error(`package.json exports name files the build did not write: ${missing.join(", ")}`)
}

const ifChanged = process.argv.includes("--if-changed")
const requested = process.argv.slice(2).filter((argument) => argument !== "--if-changed")
const unknown = requested.filter((part) => !(part in parts))
if (unknown.length > 0) {
  process.stderr.write(`unknown build part(s): ${unknown.join(", ")}; choose from ${Object.keys(parts).join(", ")}\n`)
  process.exit(2)
}
const chosen = requested.length === 0 ? Object.keys(parts) : requested
for (const part of chosen) {
  const started = performance.now()
  // The digest is taken before the build: a source edited while it runs makes the next --if-changed build again.
  const digest = part in STAMPED ? inputsDigest(ROOT, part) : undefined
  if (ifChanged && digest !== undefined && upToDate(ROOT, part, digest)) {
    process.stdout.write(`build ${part}: up to date (no input changed since its last build)\n`)
    continue
  }
  if (digest !== undefined) clearStamp(ROOT, part)
  await parts[part]()
  if (digest !== undefined) writeStamp(ROOT, part, digest)
  process.stdout.write(`build ${part}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
}
if (chosen.includes("lib") && chosen.includes("types")) checkExports()
