import { Effect, Redacted, Stream } from "effect"
import type { Connection } from "../domain/Connection.ts"
import { toolFailure } from "../domain/ToolErrors.ts"
import { Connections, connectionSecrets, tlsFilesOf } from "./Connections.ts"
import type { DatabaseDriver } from "./drivers/Driver.ts"
import { makeSqliteDriver } from "./drivers/SqliteDriver.ts"
import { Approvals } from "./Approvals.ts"
import { HostKeyQuestions } from "./ssh/HostKeys.ts"
import { SupportPaths } from "./SupportPaths.ts"

/**
 * One lazily opened driver per SQL connection, closed when the connection changes or is removed
 * and at shutdown (D-12).
 */
export class Drivers extends Effect.Service<Drivers>()("dbdesk/services/Drivers", {
  scoped: Effect.gen(function*() {
    const connections = yield* Connections
    const open = new Map<string, DatabaseDriver>()
    const lock = yield* Effect.makeSemaphore(1)
    // What an SSH tunnel asks and remembers host keys with; ssh2 itself loads with the first tunnelled connection.
    const tunnelServices = {
      paths: yield* Effect.serviceOption(SupportPaths),
      questions: yield* Effect.serviceOption(HostKeyQuestions),
      approvals: yield* Effect.serviceOption(Approvals)
    }
    const tunnelFor = (connection: Extract<Connection, { type: "postgresql" | "mysql" }>) =>
      connection.ssh === undefined
        ? Effect.succeed(undefined)
        : Effect.promise(() => import("./ssh/ConnectionTunnel.ts")).pipe(
          Effect.map(({ tunnelEnvironment, tunnelOf }) => tunnelOf(connection, tunnelEnvironment(tunnelServices)))
        )
    /** The driver closes its tunnel after its sessions. */
    const withTunnel = (driver: DatabaseDriver, tunnel: { readonly close: () => void } | undefined): DatabaseDriver =>
      tunnel === undefined
        ? driver
        : { ...driver, close: () => Effect.ensuring(driver.close(), Effect.sync(() => tunnel.close())) }

    const drop = (id: string) =>
      Effect.suspend(() => {
        const driver = open.get(id)
        open.delete(id)
        return driver === undefined ? Effect.void : driver.close()
      })

    yield* connections.changes.pipe(
      Stream.runForEach((change) => (change.kind === "added" ? Effect.void : drop(change.connection.id))),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => Effect.forEach([...open.keys()], drop, { discard: true }))

    // Untraced: this runs on every call, where a traced Effect.fn costs ~13 µs (bench/README.md "Where a request's time goes").
    const forConnection = Effect.fnUntraced(function*(connection: Connection) {
      const existing = open.get(connection.id)
      if (existing !== undefined) return existing
      return yield* lock.withPermits(1)(Effect.gen(function*() {
        const again = open.get(connection.id)
        if (again !== undefined) return again
        switch (connection.type) {
          case "sqlite": {
            const driver = yield* makeSqliteDriver({
              path: connection.path,
              name: connection.name,
              secrets: connectionSecrets(connection)
            })
            open.set(connection.id, driver)
            return driver
          }
          case "postgresql": {
            // Loaded on the first PostgreSQL connection: `serve` starts without the PostgreSQL client (D-76).
            const { makePostgresDriver } = yield* Effect.promise(() => import("./drivers/PostgresDriver.ts"))
            const tunnel = yield* tunnelFor(connection)
            const driver = withTunnel(
              yield* makePostgresDriver({
                name: connection.name,
                host: connection.host,
                port: connection.port,
                database: connection.database,
                user: connection.user,
                ...(connection.password === undefined ? {} : { password: Redacted.value(connection.password) }),
                sslMode: connection.sslMode,
                tls: tlsFilesOf(connection),
                secrets: connectionSecrets(connection),
                ...(tunnel === undefined ? {} : { tunnel })
              }),
              tunnel
            )
            open.set(connection.id, driver)
            return driver
          }
          case "mysql": {
            // Loaded on the first MySQL/MariaDB connection, like PostgreSQL: `serve` starts without mysql2 (D-76).
            const { makeMysqlDriver } = yield* Effect.promise(() => import("./drivers/MysqlDriver.ts"))
            const tunnel = yield* tunnelFor(connection)
            const driver = withTunnel(
              yield* makeMysqlDriver({
                name: connection.name,
                host: connection.host,
                port: connection.port,
                user: connection.user,
                ...(connection.password === undefined ? {} : { password: Redacted.value(connection.password) }),
                ...(connection.database === undefined ? {} : { database: connection.database }),
                sslMode: connection.sslMode,
                tls: tlsFilesOf(connection),
                secrets: connectionSecrets(connection),
                ...(tunnel === undefined ? {} : { tunnel })
              }),
              tunnel
            )
            open.set(connection.id, driver)
            return driver
          }
          case "search":
            return yield* toolFailure(
              "unsupported",
              `'${connection.name}' is a search-engine connection: use search_documents or list_tables`
            )
        }
      }))
    })

    /** Closes and forgets the driver opened for `id` (a connection tested before it was saved). */
    const release = (id: string) => lock.withPermits(1)(drop(id))

    return { forConnection, release } as const
  })
}) {}
