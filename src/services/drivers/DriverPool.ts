import { Effect } from "effect"
import type { DatabaseDriver } from "./Driver.ts"
import { makeSqliteDriver } from "./SqliteDriver.ts"

/** What the pool needs to open a connection's driver. The PostgreSQL and search drivers add their variants. */
export type DriverSettings = {
  readonly type: "sqlite"
  readonly path: string
  /** Secrets of the connection to redact from driver text (C7.2-b). */
  readonly secrets?: ReadonlyArray<string>
}

interface Entry {
  readonly key: string
  readonly driver: DatabaseDriver
}

const keyOf = (settings: DriverSettings): string => JSON.stringify(settings)

const open = (settings: DriverSettings): Effect.Effect<DatabaseDriver> => {
  switch (settings.type) {
    case "sqlite":
      return makeSqliteDriver({ path: settings.path, ...(settings.secrets ? { secrets: settings.secrets } : {}) })
  }
}

/**
 * One driver per connection id, opened lazily on first use and reopened when the connection's settings
 * change; every driver is closed when the pool's scope ends (server shutdown).
 */
export class DriverPool extends Effect.Service<DriverPool>()("app/services/drivers/DriverPool", {
  scoped: Effect.gen(function*() {
    const drivers = new Map<string, Entry>()

    const close = Effect.fn("DriverPool.close")(function*(connectionId: string) {
      const entry = drivers.get(connectionId)
      drivers.delete(connectionId)
      if (entry !== undefined) yield* entry.driver.close()
    })

    const get = Effect.fn("DriverPool.get")(function*(connectionId: string, settings: DriverSettings) {
      const key = keyOf(settings)
      const existing = drivers.get(connectionId)
      if (existing !== undefined && existing.key === key) return existing.driver
      const driver = yield* open(settings)
      drivers.set(connectionId, { key, driver })
      if (existing !== undefined) yield* existing.driver.close()
      return driver
    })

    const closeAll = Effect.fn("DriverPool.closeAll")(function*() {
      const ids = [...drivers.keys()]
      yield* Effect.forEach(ids, (id) => close(id), { concurrency: "unbounded", discard: true })
    })

    yield* Effect.addFinalizer(() => closeAll())
    return { get, close, closeAll } as const
  })
}) {}
