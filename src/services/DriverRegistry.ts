import { Context, Data, Effect, Option, Schema, Scope, Stream } from "effect"
import * as path from "node:path"
import type { ConnectionType, SearchConnection } from "../domain/Connection.ts"
import { toolFailure } from "../domain/ToolErrors.ts"
import type { DriverInstance, DriverPlugin } from "./drivers/DriverPlugin.ts"
import type { SearchSession } from "./drivers/SearchDriver.ts"
import { readFileIfExists, writeJsonAtomic } from "./AtomicFile.ts"
import { Connections } from "./Connections.ts"
import { SupportPaths } from "./SupportPaths.ts"

export type { DriverInstance, DriverPlugin, StatementTier } from "./drivers/DriverPlugin.ts"

/** The separately loaded modules, by connection type; tests replace them to watch the loading. */
export interface DriverModules {
  readonly search: () => Promise<{ readonly searchDriver: DriverPlugin<SearchSession> }>
}

export class DriverModuleLoaders
  extends Context.Tag("dbdesk/services/DriverModuleLoaders")<DriverModuleLoaders, DriverModules>()
{}

const defaultModules: DriverModules = { search: () => import("./drivers/SearchDriver.ts") }

export type DriverState = "builtIn" | "available" | "enabled"

/** One row of the plugin browser (and of the new-connection chooser). */
export interface DriverListing {
  readonly type: ConnectionType
  readonly title: string
  readonly state: DriverState
}

/** A new connection of a driver that is still only available: the UI offers the explicit enable step first. */
export class DriverNotEnabled extends Data.TaggedError("DriverNotEnabled")<{ readonly type: ConnectionType }> {
  override get message(): string {
    return `The ${this.type} driver is not installed yet: enable it before creating a connection of this type.`
  }
}

export class DriverLoadFailed
  extends Data.TaggedError("DriverLoadFailed")<{ readonly type: ConnectionType; readonly reason: string }>
{
  override get message(): string {
    return `The ${this.type} driver could not be loaded: ${this.reason}`
  }
}

const EnabledDrivers = Schema.Struct({ version: Schema.Literal(1), enabled: Schema.Array(Schema.Literal("search")) })

const builtIn: ReadonlyArray<DriverListing> = [
  { type: "sqlite", title: "SQLite", state: "builtIn" },
  { type: "postgresql", title: "PostgreSQL", state: "builtIn" },
  { type: "mysql", title: "MySQL / MariaDB", state: "builtIn" }
]

/**
 * Knows the built-in drivers and the loadable ones (D-55). The search driver is "available"
 * until enabled: explicitly (`enable`, from the new-connection chooser or the plugin browser), or without asking when
 * a saved search connection is opened (`openSearch`, S1-b). The enabled set is kept in `drivers.json`, written
 * atomically (D-7).
 */
export class DriverRegistry extends Effect.Service<DriverRegistry>()("dbdesk/services/DriverRegistry", {
  scoped: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const modules = Option.getOrElse(yield* Effect.serviceOption(DriverModuleLoaders), () => defaultModules)
    const file = path.join(paths.directory, "drivers.json")
    const text = yield* Effect.orElseSucceed(readFileIfExists(file), () => undefined)
    const stored = text === undefined
      ? []
      : Option.match(Schema.decodeUnknownOption(Schema.parseJson(EnabledDrivers))(text), {
        onNone: () => [],
        onSome: (value) => value.enabled
      })
    const enabled = new Set<"search">(stored)
    const registryScope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    let search: DriverInstance<SearchSession> | undefined

    const list = Effect.sync((): ReadonlyArray<DriverListing> => [
      ...builtIn,
      { type: "search", title: "Typesense (search engine)", state: enabled.has("search") ? "enabled" : "available" }
    ])

    const isEnabled = (type: ConnectionType) => Effect.sync(() => type !== "search" || enabled.has("search"))

    const load = lock.withPermits(1)(Effect.gen(function*() {
      if (search !== undefined) return search
      const module = yield* Effect.tryPromise({
        try: () => modules.search(),
        catch: (error) =>
          new DriverLoadFailed({ type: "search", reason: error instanceof Error ? error.message : String(error) })
      })
      search = yield* module.searchDriver.start.pipe(Scope.extend(registryScope))
      return search
    }))

    /** The explicit step: loads the driver and remembers it as enabled. */
    const enable = Effect.fn("DriverRegistry.enable")(function*(type: ConnectionType) {
      if (type !== "search") return
      yield* load
      if (enabled.has("search")) return
      enabled.add("search")
      yield* writeJsonAtomic(file, { version: 1, enabled: [...enabled] }, 0o600).pipe(Effect.orDie)
    })

    /**
     * The plugin browser's switch (D-55): the driver is offered as "available" again and new connections of its
     * type need the enable step. The caller refuses while saved connections use it (opening one re-enables it, S1-b).
     */
    const disable = Effect.fn("DriverRegistry.disable")(function*(type: ConnectionType) {
      if (type !== "search" || !enabled.has("search")) return
      enabled.delete("search")
      yield* writeJsonAtomic(file, { version: 1, enabled: [...enabled] }, 0o600).pipe(Effect.orDie)
    })

    /** The new-connection chooser: a type whose driver is only available needs `enable` first. */
    const requireForNewConnection = (type: ConnectionType) =>
      Effect.flatMap(isEnabled(type), (ready) => (ready ? Effect.void : Effect.fail(new DriverNotEnabled({ type }))))

    /** A saved search connection is opened: its driver is enabled without asking (S1-b), then the session opens. */
    const openSearch = Effect.fn("DriverRegistry.openSearch")(function*(connection: SearchConnection) {
      yield* enable("search").pipe(Effect.mapError((error) => toolFailure("internal_failure", error.message)))
      const driver = yield* load.pipe(Effect.mapError((error) => toolFailure("internal_failure", error.message)))
      const session = yield* driver.connect(connection)
      return { driver, session } as const
    })

    const connections = yield* Effect.serviceOption(Connections)
    if (Option.isSome(connections)) {
      yield* connections.value.changes.pipe(
        Stream.runForEach((change) =>
          change.kind !== "added" && change.connection.type === "search" && search !== undefined
            ? search.disconnect(change.connection.id)
            : Effect.void
        ),
        Effect.forkScoped
      )
    }

    return { list, isEnabled, enable, disable, requireForNewConnection, openSearch } as const
  })
}) {}
