import { Context, Data, Effect, Layer, PubSub, Redacted, Schema, Stream, SynchronizedRef } from "effect"
import { randomUUID } from "node:crypto"
import { Connection, ConnectionsFile, type ConnectionId } from "../domain/Connection.ts"
import { readFileIfExists, writeJsonAtomic } from "./AtomicFile.ts"
import { ensureSampleDatabase } from "./SampleDatabase.ts"
import { SupportPaths } from "./SupportPaths.ts"

export class ConnectionsInvalid
  extends Data.TaggedError("ConnectionsInvalid")<{ readonly path: string; readonly reason: string }>
{
  override get message(): string {
    return `${this.path} is not valid: ${this.reason}. Fix the file (or move it away to start with the sample connection).`
  }
}

/** Published whenever the set of connections or one connection's settings changes (subscriptions/listen). */
export type ConnectionsChange =
  | { readonly kind: "added"; readonly connection: Connection }
  | { readonly kind: "updated"; readonly connection: Connection; readonly previous: Connection }
  | { readonly kind: "removed"; readonly connection: Connection }

export type NewConnection = Schema.Schema.Encoded<typeof Connection> extends infer E
  ? E extends { id: string } ? Omit<E, "id"> : never
  : never

/** Secrets of a connection, for the redactor of driver errors (C7.2-b). */
export const connectionSecrets = (connection: Connection): ReadonlyArray<string> => {
  switch (connection.type) {
    case "sqlite":
      return []
    case "postgresql":
    case "mysql":
      return [connection.password, connection.sslKeyPassphrase, connection.ssh?.password, connection.ssh?.passphrase]
        .flatMap((secret) => (secret === undefined ? [] : [Redacted.value(secret)]))
    case "search":
      return [Redacted.value(connection.apiKey)]
  }
}

/** The TLS files of a PostgreSQL or MySQL/MariaDB connection as its driver takes them (the passphrase revealed only there). */
export const tlsFilesOf = (connection: Connection & { readonly type: "postgresql" | "mysql" }) => ({
  ...(connection.sslCa === undefined ? {} : { ca: connection.sslCa }),
  ...(connection.sslCert === undefined ? {} : { cert: connection.sslCert }),
  ...(connection.sslKey === undefined ? {} : { key: connection.sslKey }),
  ...(connection.sslKeyPassphrase === undefined ? {} : { passphrase: Redacted.value(connection.sslKeyPassphrase) })
})

export interface ConnectionsShape {
  readonly list: Effect.Effect<ReadonlyArray<Connection>>
  readonly get: (id: string) => Effect.Effect<Connection | undefined>
  readonly add: (input: NewConnection) => Effect.Effect<Connection, ConnectionsInvalid>
  readonly update: (id: string, patch: Partial<NewConnection>) => Effect.Effect<Connection, ConnectionsInvalid>
  readonly remove: (id: string) => Effect.Effect<boolean, ConnectionsInvalid>
  readonly changes: Stream.Stream<ConnectionsChange>
}

/** The user's configured connections: `connections.json` in the standalone server, the host's list when embedded. */
export class Connections extends Context.Tag("dbdesk/services/Connections")<Connections, ConnectionsShape>() {
  /** D-16: created on first start with no connections.json. */
  static readonly sampleConnection = (path: string) =>
    Schema.decodeUnknownSync(Connection)({
      id: randomUUID(),
      name: "Sample (SQLite)",
      type: "sqlite",
      path,
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow",
      confirmQueries: "writes"
    })

  static readonly make = (
    initial: ReadonlyArray<Connection>,
    persist: (all: ReadonlyArray<Connection>) => Effect.Effect<void, ConnectionsInvalid>
  ) =>
    Effect.gen(function*() {
      const state = yield* SynchronizedRef.make<ReadonlyArray<Connection>>(initial)
      const hub = yield* PubSub.unbounded<ConnectionsChange>()
      // A key set to undefined is left out, so an edit can clear an optional setting (a cluster's nearest node).
      const decode = (value: Record<string, unknown>) =>
        Schema.decodeUnknown(Connection)(
          Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined))
        ).pipe(Effect.mapError((error) => new ConnectionsInvalid({ path: "connection", reason: error.message })))
      const modify = <A>(
        f: (
          all: ReadonlyArray<Connection>
        ) => Effect.Effect<readonly [A, ReadonlyArray<Connection>, ConnectionsChange | undefined], ConnectionsInvalid>
      ) =>
        SynchronizedRef.modifyEffect(state, (all) =>
          Effect.gen(function*() {
            const [result, next, change] = yield* f(all)
            if (change !== undefined) {
              yield* persist(next)
              yield* PubSub.publish(hub, change)
            }
            return [result, next] as const
          }))
      const encode = Schema.encodeSync(Connection)
      return {
        list: SynchronizedRef.get(state),
        get: (id) => Effect.map(SynchronizedRef.get(state), (all) => all.find((connection) => connection.id === id)),
        add: (input) =>
          modify((all) =>
            Effect.map(decode({ ...input, id: randomUUID() }), (connection) =>
              [connection, [...all, connection], { kind: "added", connection }] as const)
          ),
        update: (id, patch) =>
          modify((all) =>
            Effect.gen(function*() {
              const previous = all.find((connection) =>
                connection.id === id
              )
              if (previous === undefined) {
                return yield* new ConnectionsInvalid({ path: "connection", reason: `no connection with id ${id}` })
              }
              const connection = yield* decode({ ...encode(previous), ...patch, id })
              return [connection, all.map((item) => (item.id === id ? connection : item)), {
                kind: "updated",
                connection,
                previous
              }] as const
            })
          ),
        remove: (id) =>
          modify((all) => {
            const connection = all.find((item) => item.id === id)
            return Effect.succeed(
              connection === undefined
                ? [false, all, undefined] as const
                : [true, all.filter((item) => item.id !== id), { kind: "removed", connection }] as const
            )
          }),
        changes: Stream.fromPubSub(hub)
      } satisfies ConnectionsShape
    })

  /** A fixed list kept in memory (embedded hosts and tests). */
  static readonly layerMemory = (connections: ReadonlyArray<Schema.Schema.Encoded<typeof Connection>>) =>
    Layer.effect(
      Connections,
      Effect.flatMap(
        Effect.orDie(Schema.decodeUnknown(Schema.Array(Connection))(connections)),
        (initial) => Connections.make(initial, () => Effect.void)
      )
    )

  /** `connections.json` (0600, atomic writes); the sample database and connection on first start. */
  static readonly layerFile = Layer.effect(
    Connections,
    Effect.gen(function*() {
      const paths = yield* SupportPaths
      const text = yield* Effect.orDie(readFileIfExists(paths.connections))
      const write = (all: ReadonlyArray<Connection>) =>
        writeJsonAtomic(paths.connections, Schema.encodeSync(ConnectionsFile)({ version: 1, connections: all }), 0o600)
          .pipe(
            Effect.mapError((error) => new ConnectionsInvalid({ path: paths.connections, reason: error.message }))
          )
      let initial: ReadonlyArray<Connection>
      if (text === undefined) {
        yield* Effect.orDie(ensureSampleDatabase(paths.sampleDatabase))
        initial = [Connections.sampleConnection(paths.sampleDatabase)]
        yield* write(initial)
      } else {
        const parsed = yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: (error) => new ConnectionsInvalid({ path: paths.connections, reason: String(error) })
        })
        initial = (yield* Schema.decodeUnknown(ConnectionsFile)(parsed).pipe(
          Effect.mapError((error) => new ConnectionsInvalid({ path: paths.connections, reason: error.message }))
        )).connections
      }
      return yield* Connections.make(initial, write)
    })
  )
}

export type { ConnectionId }
