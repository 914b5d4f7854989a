import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { SearchConnection } from "../../src/domain/Connection.ts"
import { DriverModuleLoaders, DriverRegistry, type DriverModules } from "../../src/services/DriverRegistry.ts"
import { SupportPaths } from "../../src/services/SupportPaths.ts"
import { tempHome } from "../support/TestServer.ts"

/** The real module behind a loader that counts how often it is imported (or fails when told to). */
const watchedModules = (options: { readonly fail?: boolean } = {}) => {
  const loads = { count: 0 }
  const modules: DriverModules = {
    search: async () => {
      loads.count++
      if (options.fail === true) throw new Error("module missing")
      return import("../../src/services/drivers/SearchDriver.ts")
    }
  }
  return { loads, modules }
}

const registryIn = (home: string, modules: DriverModules) =>
  Effect.map(
    Layer.build(
      DriverRegistry.Default.pipe(
        Layer.provide(SupportPaths.layer(home)),
        Layer.provide(Layer.succeed(DriverModuleLoaders, modules))
      )
    ),
    (context) => Context.get(context, DriverRegistry)
  )

const savedConnection = Schema.decodeUnknownSync(SearchConnection)({
  id: "saved-search",
  name: "Saved search",
  type: "search",
  host: "127.0.0.1",
  port: 8108,
  apiKey: "key"
})

const searchState = (registry: DriverRegistry) =>
  Effect.map(registry.list, (drivers) => drivers.find((driver) => driver.type === "search")?.state)

describe("DriverRegistry (D-55 Plugin)", () => {
  it.scoped("S1-b the search driver is only available, and not loaded, until it is enabled; a new search connection needs the explicit step", () =>
    Effect.gen(function*() {
      const { loads, modules } = watchedModules()
      const registry = yield* registryIn(tempHome(), modules)
      expect(yield* registry.list).toEqual([
        { type: "sqlite", title: "SQLite", state: "builtIn" },
        { type: "postgresql", title: "PostgreSQL", state: "builtIn" },
        { type: "mysql", title: "MySQL / MariaDB", state: "builtIn" },
        { type: "search", title: "Typesense (search engine)", state: "available" }
      ])
      const refused = yield* Effect.flip(registry.requireForNewConnection("search"))
      assert.strictEqual(refused._tag, "DriverNotEnabled")
      yield* registry.requireForNewConnection("sqlite")
      yield* registry.requireForNewConnection("mysql")
      assert.strictEqual(loads.count, 0)
    }))

  it.scoped("S1-b enabling loads the module once and is remembered in drivers.json across restarts", () =>
    Effect.gen(function*() {
      const home = tempHome()
      const { loads, modules } = watchedModules()
      const registry = yield* registryIn(home, modules)
      yield* registry.enable("search")
      yield* registry.enable("search")
      assert.strictEqual(loads.count, 1)
      assert.strictEqual(yield* searchState(registry), "enabled")
      yield* registry.requireForNewConnection("search")
      expect(JSON.parse(readFileSync(join(home, "drivers.json"), "utf8"))).toEqual({ version: 1, enabled: ["search"] })
      const restarted = watchedModules()
      const again = yield* registryIn(home, restarted.modules)
      assert.strictEqual(yield* searchState(again), "enabled")
      yield* again.requireForNewConnection("search")
      assert.strictEqual(restarted.loads.count, 0)
    }))

  it.scoped("S1-b opening a saved search connection enables the driver without asking and gives its session", () =>
    Effect.gen(function*() {
      const home = tempHome()
      const { loads, modules } = watchedModules()
      const registry = yield* registryIn(home, modules)
      const opened = yield* registry.openSearch(savedConnection)
      assert.strictEqual(typeof opened.session.listTables, "function")
      expect(opened.driver.classify("DELETE /collections/books")).toEqual(
        expect.objectContaining({ _tag: "Right", right: "destructive" })
      )
      assert.strictEqual(loads.count, 1)
      assert.strictEqual(yield* searchState(registry), "enabled")
      expect(JSON.parse(readFileSync(join(home, "drivers.json"), "utf8")).enabled).toEqual(["search"])
    }))

  it.scoped("S1-b a driver module that cannot be loaded stays available and the tool gets an internal_failure", () =>
    Effect.gen(function*() {
      const { modules } = watchedModules({ fail: true })
      const registry = yield* registryIn(tempHome(), modules)
      const failure = yield* Effect.flip(registry.openSearch(savedConnection))
      assert.strictEqual(failure.code, "internal_failure")
      expect(failure.detail).toMatch(/module missing/)
      assert.strictEqual(yield* searchState(registry), "available")
    }))
})
