import { execFile, execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { ensureUiBuilt } from "./Browser.ts"
import { tempHome } from "./TestServer.ts"

/**
 * The package as a user gets it (D-76, D-77): `npm pack`, then `npm install --omit=dev` of the tarball into an
 * empty ESM project. Packed once per test run by test/package/Package.test.ts, which holds every test of the tarball.
 *
 * The install runs with --ignore-scripts and the better-sqlite3 binary this checkout already compiled is copied
 * into the installed better-sqlite3: its install script would compile it again (about two minutes on two cores,
 * since no prebuilt binary can be downloaded here). It is the one production dependency with a script to run
 * (package.json allowScripts). Packuments come from the registry, tarballs from npm's cache (--prefer-offline).
 */
export const ROOT = join(import.meta.dirname, "..", "..")

export interface PackedFile {
  readonly path: string
  readonly size: number
}

export interface InstalledPackage {
  readonly work: string
  /** The consumer project; the package is in its node_modules/dbdesk. */
  readonly project: string
  readonly installed: string
  readonly packed: { readonly filename: string; readonly size: number; readonly files: ReadonlyArray<PackedFile> }
  readonly bin: (name: string) => string
}

export const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

export const packAndInstall = async (): Promise<InstalledPackage> => {
  // dist/app is built by the global setup (test/support/BuildBins.ts); the library and its types are built here while
  // the UI builds through the UI tests' lock, so no fork rewrites dist/ui while it is packed.
  await Promise.all([
    promisify(execFile)(process.execPath, [join(ROOT, "scripts", "build.mjs"), "lib", "types"], { cwd: ROOT }),
    ensureUiBuilt()
  ])
  const work = tempHome("dbdesk-package-")
  const [packed] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT)) as Array<
    InstalledPackage["packed"]
  >
  const project = join(work, "project")
  mkdirSync(project)
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "empty-project", version: "1.0.0", private: true, type: "module" })
  )
  npm(["install", "--omit=dev", "--prefer-offline", "--ignore-scripts", join(work, packed!.filename)], project)
  const binary = join("build", "Release", "better_sqlite3.node")
  mkdirSync(join(project, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true })
  copyFileSync(
    join(ROOT, "node_modules", "better-sqlite3", binary),
    join(project, "node_modules", "better-sqlite3", binary)
  )
  return {
    work,
    project,
    installed: join(project, "node_modules", "dbdesk"),
    packed: packed!,
    bin: (name) => join(project, "node_modules", ".bin", name)
  }
}
