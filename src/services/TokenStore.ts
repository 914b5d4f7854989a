import { Context, Data, Effect, Layer, ParseResult, Schema } from "effect"
import { statSync } from "node:fs"
import { TokenFile, type TokenRecord } from "../domain/Token.ts"
import { type FileStoreError, readFileIfExists, withFileLock, writeJsonAtomic } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

export class TokensFileInvalid
  extends Data.TaggedError("TokensFileInvalid")<{ readonly path: string; readonly reason: string }>
{
  override get message(): string {
    return `${this.path} is not valid: ${this.reason}. Fix or delete the file (every token in it stops working) and start again.`
  }
}

export interface TokenStoreShape {
  /**
   * Differs from the last answer whenever the records may have changed, also by another process (the CLI writing
   * tokens.json): asked on every authenticated request, so it must be cheap.
   */
  readonly version: Effect.Effect<string>
  /** Every record (none before the first save). */
  readonly load: Effect.Effect<ReadonlyArray<TokenRecord>, TokensFileInvalid | FileStoreError>
  /** Replaces every record at once (D-7: a crash never leaves half a write). */
  readonly save: (records: ReadonlyArray<TokenRecord>) => Effect.Effect<void, FileStoreError>
  /**
   * Runs a read-modify-write that no other process's write may interleave with: tokens.json is written by the server
   * and the CLI, so the server stamping lastUsedAt could otherwise write back a token the CLI had just revoked.
   */
  readonly exclusive: <A, E, R>(use: Effect.Effect<A, E, R>) => Effect.Effect<A, E | FileStoreError, R>
}

/**
 * Where token records are kept (D-31: salted SHA-256 hashes, never a value). The
 * `Tokens` service owns the rules (creation, verification, revocation); this port only stores.
 */
export class TokenStore extends Context.Tag("dbdesk/services/TokenStore")<TokenStore, TokenStoreShape>() {
  /** `tokens.json` in the support directory, 0600, written atomically; changes by the CLI are seen within a request. */
  static readonly file = Layer.effect(
    TokenStore,
    Effect.map(SupportPaths, ({ tokens: path }): TokenStoreShape => ({
      // Tells a file replaced by an atomic rename (or edited) from the one last read.
      // A synchronous stat (a few µs): Tokens.verify reads the version on every request, where the thread pool's round
      // trip is not (bench/README.md "Where a request's time goes").
      version: Effect.sync(() => {
        try {
          const stat = statSync(path)
          return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
        } catch {
          return "absent"
        }
      }),
      load: Effect.gen(function*() {
        const text = yield* readFileIfExists(path)
        if (text === undefined) return []
        const parsed = yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: (error) => new TokensFileInvalid({ path, reason: String(error) })
        })
        const file = yield* Schema.decodeUnknown(TokenFile)(parsed).pipe(
          Effect.mapError((error) =>
            new TokensFileInvalid({ path, reason: ParseResult.TreeFormatter.formatErrorSync(error) })
          )
        )
        return file.tokens
      }),
      save: (records) => writeJsonAtomic(path, Schema.encodeSync(TokenFile)({ version: 1, tokens: records }), 0o600),
      exclusive: (use) => withFileLock(path, use)
    }))
  )

  /** Kept in this process only: every token ends with it (an embedding host that mints tokens per run). */
  static readonly memory = (initial: ReadonlyArray<TokenRecord> = []) =>
    Layer.sync(TokenStore, (): TokenStoreShape => {
      let records = initial
      let saves = 0
      return {
        version: Effect.sync(() => String(saves)),
        load: Effect.sync(() => records),
        save: (next) =>
          Effect.sync(() => {
            records = next
            saves += 1
          }),
        exclusive: (use) => use
      }
    })
}
