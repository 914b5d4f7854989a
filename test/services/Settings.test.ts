import { it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { defaultSettings } from "../../src/domain/Settings.ts"
import { writeFileAtomic } from "../../src/services/AtomicFile.ts"
import { type SettingsEvent, SettingsOverrides, SettingsStore } from "../../src/services/Settings.ts"
import { resolveSupportDirectory } from "../../src/services/SupportDirectory.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { tempHome } from "../support/TestServer.ts"

const storeIn = (home: string, overrides = {}) =>
  SettingsStore.Default.pipe(
    Layer.provide(SupportPaths.layer(home)),
    Layer.provide(Layer.succeed(SettingsOverrides, overrides))
  )

describe("settings and the support directory (D-6, D-11)", () => {
  it("support directory: DBDESK_HOME wins, else the platform location", () => {
    expect(resolveSupportDirectory({ DBDESK_HOME: "/x/y" }, "linux")).toBe("/x/y")
    expect(resolveSupportDirectory({ HOME: "/h" }, "linux")).toBe("/h/.local/state/dbdesk")
    expect(resolveSupportDirectory({ HOME: "/h", XDG_STATE_HOME: "/s" }, "linux")).toBe("/s/dbdesk")
    expect(resolveSupportDirectory({ HOME: "/h" }, "darwin")).toBe("/h/Library/Application Support/dbdesk")
    expect(resolveSupportDirectory({ HOME: "/h", APPDATA: "C:/Users/u/AppData/Roaming" }, "win32")).toBe(
      join("C:/Users/u/AppData/Roaming", "dbdesk")
    )
  })

  it.effect("first start writes settings.json with every default of §4.4 into a 0700 directory", () =>
    Effect.gen(function*() {
      const home = join(tempHome(), "nested", "dbdesk")
      const settings = yield* Effect.flatMap(SettingsStore, (store) => store.current).pipe(
        Effect.provide(storeIn(home))
      )
      expect(settings).toStrictEqual(defaultSettings())
      expect(settings.mcp).toMatchObject({
        enabled: true,
        port: 23750,
        requireAuth: true,
        connectionApproval: "oncePerConnection",
        logQueries: true,
        idleTimeoutSeconds: 30
      })
      expect(settings.mcp.allowedOrigins).toStrictEqual(["https://claude.ai", "https://app.cursor.com"])
      expect(settings.limits).toStrictEqual({
        defaultRows: 500,
        maxRows: 10_000,
        queryTimeoutSeconds: 30,
        requestsPerMinute: 240,
        concurrentPerCaller: 8,
        maxCellBytes: 32_768,
        maxAnswerBytes: 8_388_608,
        continuationIdleSeconds: 120,
        continuationMaxSeconds: 900
      })
      expect(settings.ui.port).toBe(23751)
      expect(statSync(home).mode & 0o777).toBe(0o700)
      expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).limits.requestsPerMinute).toBe(240)
    }))

  it.effect("a partial settings.json is completed by the defaults; overrides are applied but never written", () =>
    Effect.gen(function*() {
      const home = tempHome()
      writeFileSync(join(home, "settings.json"), JSON.stringify({ limits: { requestsPerMinute: 5 } }))
      const settings = yield* Effect.flatMap(SettingsStore, (store) => store.current).pipe(
        Effect.provide(storeIn(home, { mcp: { port: 0 } }))
      )
      expect(settings.limits.requestsPerMinute).toBe(5)
      expect(settings.limits.concurrentPerCaller).toBe(8)
      expect(settings.mcp.port).toBe(0)
      expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).mcp).toBeUndefined()
    }))

  it.effect("an invalid settings.json is refused with a message naming the file and the field", () =>
    Effect.gen(function*() {
      const home = tempHome()
      writeFileSync(join(home, "settings.json"), JSON.stringify({ limits: { maxRows: "lots" } }))
      const error = yield* Effect.flip(
        Effect.flatMap(SettingsStore, (store) => store.current).pipe(Effect.provide(storeIn(home)))
      )
      expect(error.message).toContain(join(home, "settings.json"))
      expect(error.message).toContain("maxRows")
    }))

  it.effect("update writes settings.json atomically and readers see the change without restart", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const store = yield* SettingsStore
      yield* store.update({ limits: { requestsPerMinute: 99 } })
      expect((yield* store.current).limits.requestsPerMinute).toBe(99)
      expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).limits.requestsPerMinute).toBe(99)
      expect(readdirSync(home).filter((name) => name.endsWith(".tmp"))).toStrictEqual([])
    }).pipe(Effect.provide(storeIn(home)))
  })

  it.effect("atomic writes leave no temp file, replace the whole file and apply the mode", () =>
    Effect.gen(function*() {
      const home = tempHome()
      const file = join(home, "secret.json")
      yield* writeFileAtomic(file, "first", 0o600)
      yield* writeFileAtomic(file, "second", 0o600)
      expect(readFileSync(file, "utf8")).toBe("second")
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readdirSync(home)).toStrictEqual(["secret.json"])
    }))
})

describe("settings.json edited while the server runs (D-11)", () => {
  const waitFor = <A>(read: Effect.Effect<A>, until: (value: A) => boolean, what: string) =>
    Effect.gen(function*() {
      for (let attempt = 0; attempt < 100; attempt++) {
        const value = yield* read
        if (until(value)) return value
        yield* Effect.sleep("50 millis")
      }
      return yield* Effect.dieMessage(`settings.json edit never picked up: ${what}`)
    })

  it.live("a valid edit reaches every reader without restart, overrides still on top", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const store = yield* SettingsStore
      expect((yield* store.current).limits.requestsPerMinute).toBe(240)
      const file = join(home, "settings.json")
      const edited = JSON.parse(readFileSync(file, "utf8"))
      edited.limits.requestsPerMinute = 7
      edited.mcp.port = 4444
      writeFileSync(file, JSON.stringify(edited))
      const after = yield* waitFor(
        store.current,
        (settings) => settings.limits.requestsPerMinute === 7,
        "requestsPerMinute 7"
      )
      expect(after.mcp.port).toBe(0)
    }).pipe(Effect.provide(storeIn(home, { mcp: { port: 0 } })))
  })

  it.live("a bad edit keeps the previous settings and says why (the field and the file); the next good edit applies", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const store = yield* SettingsStore
      const events = yield* store.subscribeEvents
      const seen: Array<SettingsEvent> = []
      yield* Effect.forkScoped(Stream.runForEach(events, (event) => Effect.sync(() => seen.push(event))))
      const file = join(home, "settings.json")
      writeFileSync(file, JSON.stringify({ limits: { requestsPerMinute: 11 } }))
      yield* waitFor(store.current, (settings) => settings.limits.requestsPerMinute === 11, "requestsPerMinute 11")
      writeFileSync(file, JSON.stringify({ limits: { requestsPerMinute: "lots" } }))
      const rejected = yield* waitFor(
        Effect.sync(() => seen.find((event) => event.kind === "rejected")),
        (event) => event !== undefined,
        "a rejection"
      )
      expect(rejected?.kind === "rejected" && rejected.reason).toContain("requestsPerMinute")
      expect(rejected?.kind === "rejected" && rejected.path).toBe(file)
      expect((yield* store.current).limits.requestsPerMinute).toBe(11)
      writeFileSync(file, "{ not json")
      yield* waitFor(
        Effect.sync(() => seen.filter((event) => event.kind === "rejected").length),
        (count) => count === 2,
        "a second rejection"
      )
      expect((yield* store.current).limits.requestsPerMinute).toBe(11)
      writeFileSync(file, JSON.stringify({ limits: { requestsPerMinute: 12 } }))
      yield* waitFor(store.current, (settings) => settings.limits.requestsPerMinute === 12, "requestsPerMinute 12")
      expect(seen.filter((event) => event.kind === "applied").map((event) => event.kind === "applied" && event.changed))
        .toContainEqual(["limits.requestsPerMinute"])
    }).pipe(Effect.scoped, Effect.provide(storeIn(home)))
  })

  it.live("an update made in the UI starts from the file on disk, so a hand edit made meanwhile is kept", () => {
    const home = tempHome()
    return Effect.gen(function*() {
      const store = yield* SettingsStore
      writeFileSync(join(home, "settings.json"), JSON.stringify({ limits: { maxRows: 77 } }))
      yield* store.update({ limits: { requestsPerMinute: 99 } })
      const written = JSON.parse(readFileSync(join(home, "settings.json"), "utf8"))
      expect(written.limits).toMatchObject({ maxRows: 77, requestsPerMinute: 99 })
      expect((yield* store.current).limits).toMatchObject({ maxRows: 77, requestsPerMinute: 99 })
    }).pipe(Effect.provide(storeIn(home)))
  })
})
