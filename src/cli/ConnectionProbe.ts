import { Effect, Layer } from "effect"
import type { Connection } from "../domain/Connection.ts"
import { uiMessage } from "../http/ui/UiErrors.ts"
import { SearchClients } from "../search/SearchClients.ts"
import { connect } from "../search/SearchServer.ts"
import { Connections } from "../services/Connections.ts"
import { Drivers } from "../services/Drivers.ts"
import { where } from "./ConnectionFields.ts"

export interface ProbeResult {
  readonly id: string
  readonly name: string
  readonly type: string
  /** Its file, or host:port/database. */
  readonly where: string
  readonly ok: boolean
  /** What the database said, in plain words (secrets redacted by the drivers). */
  readonly message: string
}

/** Each probe gets this long before it is called unreachable; a dead host must not hang `doctor`. */
const PROBE_SECONDS = 15

/**
 * Opens each connection the way the server would and asks for its status: SQL connections through
 * their driver's `status()`, search connections through `GET /health` and `/debug`. Imported only
 * by command handlers, which load lazily (the drivers and the search client stay out of --help).
 */
export const probeConnections = (connections: ReadonlyArray<Connection>): Effect.Effect<ReadonlyArray<ProbeResult>> =>
  Effect.gen(function*() {
    const probeOne = (connection: Connection) =>
      Effect.gen(function*() {
        if (connection.type === "search") {
          const clients = yield* SearchClients
          const client = yield* clients.clientFor(connection.id, connection)
          const info = yield* connect(client)
          return {
            ok: true,
            message: `Connected to Typesense ${info.version ?? "(version unknown)"}. ${info.warnings.join(" ")}`.trim()
          }
        }
        const driver = yield* Effect.flatMap(Drivers, (drivers) => drivers.forConnection(connection))
        const status = yield* driver.status()
        return status.status === "connected"
          ? {
            ok: true,
            message: `Connected${status.server_version === undefined ? "" : ` (${status.server_version})`}.`
          }
          : { ok: false, message: status.error ?? status.status }
      }).pipe(
        Effect.timeoutFail({
          duration: `${PROBE_SECONDS} seconds`,
          onTimeout: () => new Error(`no answer within ${PROBE_SECONDS} s: check the host, the port and any firewall`)
        }),
        Effect.catchAll((error) => Effect.succeed({ ok: false, message: uiMessage(error) })),
        Effect.map((outcome): ProbeResult => ({
          id: connection.id,
          name: connection.name,
          type: connection.type,
          where: where(connection),
          ...outcome
        }))
      )
    const services = Layer.merge(Drivers.Default, SearchClients.Default).pipe(
      Layer.provide(Layer.effect(Connections, Connections.make(connections, () => Effect.void)))
    )
    return yield* Effect.forEach(connections, probeOne, { concurrency: 4 }).pipe(
      Effect.provide(services),
      Effect.scoped
    )
  })
