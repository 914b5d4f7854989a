import { Context, Data, Effect, Option, ParseResult, Schema, SubscriptionRef } from "effect"
import { applySettingsPatch, Settings, type SettingsPatch } from "../domain/Settings.ts"
import { readFileIfExists, writeJsonAtomic } from "./AtomicFile.ts"
import { SupportPaths } from "./SupportPaths.ts"

export class SettingsInvalid extends Data.TaggedError("SettingsInvalid")<{ readonly path: string; readonly reason: string }> {
  override get message(): string {
    return `${this.path} is not valid: ${this.reason}. Fix or delete the file and start again.`
  }
}

/** In-memory overrides applied on top of settings.json and never written back (tests, CLI flags, embedding hosts). */
export class SettingsOverrides extends Context.Tag("dbdesk/services/SettingsOverrides")<SettingsOverrides, SettingsPatch>() {}

/**
 * product-decisions §1 "Settings": `settings.json` with defaults for everything in §4.4, read at
 * start; changes take effect without restart for readers that call `current` per use.
 */
export class SettingsStore extends Effect.Service<SettingsStore>()("dbdesk/services/SettingsStore", {
  effect: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const overrides = Option.getOrElse(yield* Effect.serviceOption(SettingsOverrides), () => ({}))
    const text = yield* readFileIfExists(paths.settings)
    let stored: Settings
    if (text === undefined) {
      stored = Schema.decodeSync(Settings)({})
      yield* writeJsonAtomic(paths.settings, Schema.encodeSync(Settings)(stored), 0o600)
    } else {
      const parsed = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: (error) => new SettingsInvalid({ path: paths.settings, reason: String(error) })
      })
      stored = yield* Schema.decodeUnknown(Settings)(parsed).pipe(
        Effect.mapError((error) =>
          new SettingsInvalid({ path: paths.settings, reason: ParseResult.TreeFormatter.formatErrorSync(error) })
        )
      )
    }
    let persisted = stored
    let effective = applySettingsPatch(stored, overrides)
    const ref = yield* SubscriptionRef.make(effective)

    /** The settings in effect, read synchronously (the socket layer reads them on every request, issue 33). */
    const now = (): Settings => effective
    const current = Effect.sync(now)

    const update = Effect.fn("SettingsStore.update")(function*(patch: SettingsPatch) {
      const next = applySettingsPatch(persisted, patch)
      yield* writeJsonAtomic(paths.settings, Schema.encodeSync(Settings)(next), 0o600)
      persisted = next
      effective = applySettingsPatch(next, overrides)
      yield* SubscriptionRef.set(ref, effective)
      return next
    })

    return { current, now, update, changes: ref.changes } as const
  })
}) {}
