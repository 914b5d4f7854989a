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
 * D-7: every write is atomic — temp file in the same directory,
 * fsync, rename — so a crash never leaves a half-written file. `mode` applies from creation.
 */
export const writeFileAtomic = (filePath: string, contents: string | Uint8Array, mode = 0o600) =>
  Effect.tryPromise({
    try: async () => {
      const dir = path.dirname(filePath)
      const temp = path.join(dir, `.${path.basename(filePath)}.${randomBytes(6).toString("hex")}.tmp`)
      const handle = await fs.open(temp, "wx", mode)
      try {
        try {
          await handle.writeFile(contents)
          await handle.sync()
        } finally {
          await handle.close()
        }
        await fs.chmod(temp, mode)
        await fs.rename(temp, filePath)
      } catch (error) {
        // A failed write (a full disk) leaves neither the old file changed nor a temporary file behind.
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

/** A lock left by a process that no longer runs, or older than this, is broken. */
const STALE_LOCK_MS = 30_000
const LOCK_WAIT_MS = 10_000

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Creates the lock file holding our pid; false when another holds it. A lock that cannot be written is removed. */
const createLock = async (lockPath: string): Promise<boolean> => {
  const handle = await fs.open(lockPath, "wx", 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST") return undefined
    throw error
  })
  if (handle === undefined) return false
  try {
    await handle.writeFile(String(process.pid))
    return true
  } catch (error) {
    await fs.rm(lockPath, { force: true })
    throw error
  } finally {
    await handle.close()
  }
}

const acquireLock = async (lockPath: string): Promise<void> => {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    if (await createLock(lockPath)) return
    const [holder, stat] = await Promise.all([
      fs.readFile(lockPath, "utf8").catch(() => ""),
      fs.stat(lockPath).catch(() => undefined)
    ])
    const pid = Number(holder)
    // Stale: its process is gone, or it is old, or it never got a pid (its holder died between create and write).
    const age = stat === undefined ? 0 : Date.now() - stat.mtimeMs
    const stale = stat !== undefined &&
      (age > STALE_LOCK_MS || (holder === "" && age > 1_000) ||
        (Number.isInteger(pid) && pid > 0 && !processAlive(pid)))
    if (stale) await fs.rm(lockPath, { force: true })
    else if (Date.now() > deadline) throw new Error(`${lockPath} is held by process ${holder || "?"}`)
    else await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 15))
  }
}

/**
 * Runs a read-modify-write of a file that other processes write too (the CLI and the server) while holding
 * `<file>.lock` (created exclusively; broken when its process is gone). Without it the server stamping lastUsedAt could
 * write back a token the CLI had just revoked.
 */
export const withFileLock = <A, E, R>(filePath: string, use: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => acquireLock(`${filePath}.lock`),
      catch: (cause) => new FileStoreError({ path: `${filePath}.lock`, operation: "write", cause })
    }),
    () => use,
    () => Effect.promise(() => fs.rm(`${filePath}.lock`, { force: true }))
  )
