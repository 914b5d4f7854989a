import {
  Context,
  Data,
  Effect,
  Option,
  ParseResult,
  PubSub,
  Schedule,
  Schema,
  type Scope,
  Stream,
  SubscriptionRef
} from "effect"
import * as fs from "node:fs/promises"
import { applySettingsPatch, Settings, type SettingsPatch } from "../domain/Settings.ts"
import { readFileIfExists, writeJsonAtomic } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

export class SettingsInvalid
  extends Data.TaggedError("SettingsInvalid")<{ readonly path: string; readonly reason: string }>
{
  override get message(): string {
    return `${this.path} is not valid: ${this.reason}. Fix or delete the file and start again.`
  }
}

/** In-memory overrides applied on top of settings.json and never written back (tests, CLI flags, embedding hosts). */
export class SettingsOverrides
  extends Context.Tag("dbdesk/services/SettingsOverrides")<SettingsOverrides, SettingsPatch>()
{}

/** What happened to an edit of settings.json made while the server runs (the activity log and `serve`'s stderr say it). */
export type SettingsEvent =
  | { readonly kind: "applied"; readonly path: string; readonly changed: ReadonlyArray<string> }
  | { readonly kind: "rejected"; readonly path: string; readonly reason: string }

/** How often settings.json is checked for edits made by hand or by another process. */
const RELOAD_INTERVAL = "1 second"

/** Tells a file replaced by an atomic rename (or edited in place) from the one last read. */
const signatureOf = (path: string) =>
  Effect.promise(() => fs.stat(path).then((stat) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`, () => "absent"))

/** The dotted names of the settings that differ, e.g. `limits.requestsPerMinute`. */
const changedKeys = (before: Settings, after: Settings): ReadonlyArray<string> =>
  (Object.keys(after) as Array<keyof Settings>).flatMap((group) =>
    Object.keys(after[group]).filter((key) =>
      JSON.stringify((before[group] as Record<string, unknown>)[key]) !==
        JSON.stringify((after[group] as Record<string, unknown>)[key])
    ).map((key) => `${group}.${key}`)
  )

/**
 * D-11: `settings.json` with defaults for everything in §4.4, read at
 * start; a change takes effect without restart for readers that call `current` per use, whether it
 * comes from `update` (the UI) or from an edit of the file (checked every second). An edit that is
 * not valid keeps the previous settings and is announced as `rejected` with the reason.
 */
export class SettingsStore extends Effect.Service<SettingsStore>()("dbdesk/services/SettingsStore", {
  scoped: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const overrides = Option.getOrElse(yield* Effect.serviceOption(SettingsOverrides), () => ({}))
    const events = yield* PubSub.unbounded<SettingsEvent>()
    const lock = yield* Effect.makeSemaphore(1)

    const decode = (text: string) =>
      Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: (error) => new SettingsInvalid({ path: paths.settings, reason: String(error) })
      }).pipe(
        Effect.flatMap((parsed) =>
          Schema.decodeUnknown(Settings)(parsed).pipe(
            Effect.mapError((error) =>
              new SettingsInvalid({ path: paths.settings, reason: ParseResult.TreeFormatter.formatErrorSync(error) })
            )
          )
        )
      )

    let signature = yield* signatureOf(paths.settings)
    const text = yield* readFileIfExists(paths.settings)
    let persisted: Settings
    if (text === undefined) {
      persisted = Schema.decodeSync(Settings)({})
      yield* writeJsonAtomic(paths.settings, Schema.encodeSync(Settings)(persisted), 0o600)
      signature = yield* signatureOf(paths.settings)
    } else {
      persisted = yield* decode(text)
    }
    let effective = applySettingsPatch(persisted, overrides)
    const ref = yield* SubscriptionRef.make(effective)

    const adopt = (next: Settings) =>
      Effect.gen(function*() {
        const changed = changedKeys(persisted, next)
        persisted = next
        effective = applySettingsPatch(next, overrides)
        yield* SubscriptionRef.set(ref, effective)
        return changed
      })

    /** Re-reads the file when it changed on disk; each new version is applied or rejected once. */
    const reload = lock.withPermits(1)(Effect.gen(function*() {
      const current = yield* signatureOf(paths.settings)
      if (current === signature) return
      signature = current
      // A deleted file keeps the settings in force; the next update writes it again.
      const edited = yield* readFileIfExists(paths.settings)
      if (edited === undefined) return
      const outcome = yield* Effect.either(decode(edited))
      if (outcome._tag === "Left") {
        yield* PubSub.publish(events, { kind: "rejected", path: paths.settings, reason: outcome.left.reason })
        return
      }
      const changed = yield* adopt(outcome.right)
      if (changed.length > 0) yield* PubSub.publish(events, { kind: "applied", path: paths.settings, changed })
    }))
    yield* Effect.forkScoped(reload.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(RELOAD_INTERVAL))))

    /** The settings in effect, read synchronously (the socket layer reads them on every request, D-84). */
    const now = (): Settings => effective
    const current = Effect.sync(now)

    /** Applies `patch` to what the file holds now (a hand edit made meanwhile is kept), then writes it atomically. */
    const update = Effect.fn("SettingsStore.update")(function*(patch: SettingsPatch) {
      yield* Effect.ignore(reload)
      return yield* lock.withPermits(1)(Effect.gen(function*() {
        const next = applySettingsPatch(persisted, patch)
        yield* writeJsonAtomic(paths.settings, Schema.encodeSync(Settings)(next), 0o600)
        signature = yield* signatureOf(paths.settings)
        yield* adopt(next)
        return next
      }))
    })

    /** Subscribes now to what happens to later edits of settings.json. */
    const subscribeEvents: Effect.Effect<Stream.Stream<SettingsEvent>, never, Scope.Scope> = Stream.fromPubSub(events, {
      scoped: true
    })

    return { current, now, update, changes: ref.changes, subscribeEvents } as const
  })
}) {}
