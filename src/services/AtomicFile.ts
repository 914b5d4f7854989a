import { Data, Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"

export class FileStoreError extends Data.TaggedError("FileStoreError")<{
  readonly path: string
  readonly operation: "read" | "write" | "remove" | "mkdir"
  readonly cause: unknown
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `Could not ${this.operation} ${this.path}: ${reason}`
  }
}

/**
 * product-decisions §1 "Files": every write is atomic — temp file in the same directory,
 * fsync, rename — so a crash never leaves a half-written file. `mode` applies from creation.
 */
export const writeFileAtomic = (filePath: string, contents: string | Uint8Array, mode = 0o600) =>
  Effect.tryPromise({
    try: async () => {
      const dir = path.dirname(filePath)
      const temp = path.join(dir, `.${path.basename(filePath)}.${randomBytes(6).toString("hex")}.tmp`)
      const handle = await fs.open(temp, "wx", mode)
      try {
        await handle.writeFile(contents)
        await handle.sync()
      } finally {
        await handle.close()
      }
      try {
        await fs.chmod(temp, mode)
        await fs.rename(temp, filePath)
      } catch (error) {
        await fs.rm(temp, { force: true })
        throw error
      }
      const dirHandle = await fs.open(dir, "r").catch(() => undefined)
      if (dirHandle !== undefined) {
        await dirHandle.sync().catch(() => undefined)
        await dirHandle.close()
      }
    },
    catch: (cause) => new FileStoreError({ path: filePath, operation: "write", cause })
  })

export const writeJsonAtomic = (filePath: string, value: unknown, mode = 0o600) =>
  writeFileAtomic(filePath, `${JSON.stringify(value, null, 2)}\n`, mode)

/** Reads a file; `undefined` when it does not exist. */
export const readFileIfExists = (filePath: string) =>
  Effect.tryPromise({
    try: () =>
      fs.readFile(filePath, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined
        throw error
      }),
    catch: (cause) => new FileStoreError({ path: filePath, operation: "read", cause })
  })

export const removeFile = (filePath: string) =>
  Effect.tryPromise({
    try: () => fs.rm(filePath, { force: true }),
    catch: (cause) => new FileStoreError({ path: filePath, operation: "remove", cause })
  })
