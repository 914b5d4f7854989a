/**
 * What `node scripts/build.mjs --if-changed` compares (`npm start` builds this way): a SHA-256 over the path and
 * contents of every input file of a part, written beside dist/ after the part was built. A part whose inputs hash to
 * the stamp it left, and whose output is there, is not built again; any other build of the part replaces the stamp.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative, sep } from "node:path"

const COMMON = ["src", "package.json", "package-lock.json", "tsconfig.json", "scripts/build.mjs", "scripts/build-stamp.mjs"]

/** Each stamped part: its inputs (files or directories, from the repository root) and the file that proves its output. */
export const STAMPED = {
  app: { inputs: COMMON, output: "dist/app/cli.js", env: ["DBDESK_BUILD_UNMINIFIED"] },
  ui: { inputs: [...COMMON, "vite.config.ts"], output: "dist/ui/index.html", env: ["NODE_ENV"] }
}

const filesUnder = (root, entry) => {
  const path = join(root, entry)
  if (!existsSync(path)) return []
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((item) => item.isFile())
    .map((item) => join(item.parentPath ?? item.path, item.name))
}

/** The digest of a part's inputs under `root`: file paths (with / separators), their bytes, and the named env values. */
export const inputsDigest = (root, part) => {
  const hash = createHash("sha256")
  const files = STAMPED[part].inputs.flatMap((entry) => filesUnder(root, entry)).map((file) => relative(root, file).split(sep).join("/")).sort()
  for (const file of files) {
    hash.update(`${file}\0`)
    hash.update(readFileSync(join(root, file)))
    hash.update("\0")
  }
  for (const name of STAMPED[part].env) hash.update(`${name}=${process.env[name] ?? ""}\0`)
  return hash.digest("hex")
}

const stampFile = (root, part) => join(root, "dist", ".stamps", `${part}.sha256`)

/** True when the part's output is there and was built from inputs with this digest. */
export const upToDate = (root, part, digest) => {
  if (!existsSync(join(root, STAMPED[part].output))) return false
  try {
    return readFileSync(stampFile(root, part), "utf8") === digest
  } catch {
    return false
  }
}

export const clearStamp = (root, part) => rmSync(stampFile(root, part), { force: true })

export const writeStamp = (root, part, digest) => {
  mkdirSync(join(root, "dist", ".stamps"), { recursive: true })
  writeFileSync(stampFile(root, part), digest)
}
