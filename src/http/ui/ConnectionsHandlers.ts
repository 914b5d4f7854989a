import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Connection, type SearchConnection } from "../../domain/Connection.ts"
import { nodeOrigin } from "../../domain/SearchConnection.ts"
import { UiApi } from "../../domain/UiApi.ts"
import { type UiConnection, type UiConnectionInput, UiError } from "../../domain/UiSchemas.ts"
import { Connections, type NewConnection } from "../../services/Connections.ts"
import { DriverRegistry } from "../../services/DriverRegistry.ts"
import { sshFromUi, toUiSsh } from "./SshUi.ts"
import { Drivers } from "../../services/Drivers.ts"
import { forUi, notFound } from "./UiErrors.ts"
import { UiSessions } from "./UiSessions.ts"

/** What the UI may see of a connection: never a password or API key, only whether one is set. */
export const toUiConnection = (connection: Connection): UiConnection => {
  const common = {
    id: connection.id,
    name: connection.name,
    type: connection.type,
    externalAccess: connection.externalAccess,
    aiPolicy: connection.aiPolicy,
    confirmQueries: connection.confirmQueries,
    secretCatalogs: connection.secretCatalogs,
    maskingRules: connection.maskingRules.map((rule) => ({ ...rule })),
    ...(connection.color === undefined ? {} : { color: connection.color }),
    production: connection.production ?? false,
    ...(connection.group === undefined ? {} : { group: connection.group })
  }
  switch (connection.type) {
    case "sqlite":
      return { ...common, path: connection.path, hasPassword: false, hasApiKey: false }
    case "postgresql":
      return {
        ...common,
        host: connection.host,
        port: connection.port,
        database: connection.database,
        user: connection.user,
        sslMode: connection.sslMode,
        ...uiTls(connection),
        ...uiCost(connection),
        ...toUiSsh(connection.ssh),
        hasPassword: connection.password !== undefined,
        hasApiKey: false
      }
    case "mysql":
      return {
        ...common,
        host: connection.host,
        port: connection.port,
        ...(connection.database === undefined ? {} : { database: connection.database }),
        user: connection.user,
        sslMode: connection.sslMode,
        ...uiTls(connection),
        ...uiCost(connection),
        ...toUiSsh(connection.ssh),
        hasPassword: connection.password !== undefined,
        hasApiKey: false
      }
    case "search":
      return {
        ...common,
        host: connection.host,
        port: connection.port,
        sslMode: connection.sslMode,
        skipTlsVerification: connection.skipTlsVerification,
        ...uiCluster(connection),
        hasPassword: false,
        hasApiKey: true
      }
  }
}

/** The TLS files the form shows, and whether the key's passphrase is stored (never its value). */
const uiTls = (connection: Connection & { readonly type: "postgresql" | "mysql" }) => ({
  ...(connection.sslCa === undefined ? {} : { sslCa: connection.sslCa }),
  ...(connection.sslCert === undefined ? {} : { sslCert: connection.sslCert }),
  ...(connection.sslKey === undefined ? {} : { sslKey: connection.sslKey }),
  hasSslKeyPassphrase: connection.sslKeyPassphrase !== undefined
})

/** The form's TLS files; an emptied one is undefined so an edit removes it, and so is the passphrase of a removed key. */
const tlsInput = (input: UiConnectionInput) => {
  const file = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())
  const sslKey = file(input.sslKey)
  return {
    sslCa: file(input.sslCa),
    sslCert: file(input.sslCert),
    sslKey,
    ...(sslKey === undefined
      ? { sslKeyPassphrase: undefined }
      : input.sslKeyPassphrase === undefined || input.sslKeyPassphrase === ""
      ? {}
      : { sslKeyPassphrase: input.sslKeyPassphrase })
  }
}

/** D-95: the cost guard as the form shows it; absent fields are the defaults. */
const uiCost = (connection: Connection & { readonly type: "postgresql" | "mysql" }) => ({
  ...(connection.costGuard === undefined ? {} : { costGuard: connection.costGuard }),
  ...(connection.costMaxRows === undefined ? {} : { costMaxRows: connection.costMaxRows }),
  ...(connection.costMaxCost === undefined ? {} : { costMaxCost: connection.costMaxCost })
})

/** The form's cost guard; "off" and a cleared budget are undefined, so an edit removes them (the defaults apply). */
const costInput = (input: UiConnectionInput) => ({
  costGuard: input.costGuard === "off" ? undefined : input.costGuard,
  costMaxRows: input.costMaxRows ?? undefined,
  costMaxCost: input.type === "postgresql" ? input.costMaxCost ?? undefined : undefined
})

/** D-59: a search connection's cluster settings as the form shows them (nodes as URLs). */
const uiCluster = (connection: SearchConnection) => ({
  ...(connection.nodes === undefined || connection.nodes.length === 0
    ? {}
    : { nodes: connection.nodes.map(nodeOrigin).join(", ") }),
  ...(connection.nearestNode === undefined ? {} : { nearestNode: nodeOrigin(connection.nearestNode) }),
  ...(connection.healthcheckIntervalSeconds === undefined
    ? {}
    : { healthcheckIntervalSeconds: connection.healthcheckIntervalSeconds }),
  ...(connection.numRetries === undefined ? {} : { numRetries: connection.numRetries }),
  ...(connection.retryIntervalSeconds === undefined ? {} : { retryIntervalSeconds: connection.retryIntervalSeconds }),
  ...(connection.connectionTimeoutSeconds === undefined
    ? {}
    : { connectionTimeoutSeconds: connection.connectionTimeoutSeconds }),
  ...(connection.randomizeNodes === undefined ? {} : { randomizeNodes: connection.randomizeNodes })
})

/** The form's cluster settings; a cleared one is undefined, so an edit removes it (Connections drops undefined keys). */
const clusterInput = (input: UiConnectionInput) => ({
  nodes: input.nodes === undefined || input.nodes.trim() === "" ? undefined : input.nodes,
  nearestNode: input.nearestNode === undefined || input.nearestNode.trim() === "" ? undefined : input.nearestNode,
  healthcheckIntervalSeconds: input.healthcheckIntervalSeconds,
  numRetries: input.numRetries,
  retryIntervalSeconds: input.retryIntervalSeconds,
  connectionTimeoutSeconds: input.connectionTimeoutSeconds,
  randomizeNodes: input.randomizeNodes
})

const required = (value: string | undefined, message: string) =>
  value === undefined || value.trim() === "" ? Effect.fail(new UiError({ message })) : Effect.succeed(value.trim())

/** The form's fields for one driver, checked with messages that say which field to fill. */
const connectionFields = (input: UiConnectionInput, editing: boolean) =>
  Effect.gen(function*() {
    const name = yield* required(input.name, "Give the connection a name.")
    const common = {
      name,
      externalAccess: input.externalAccess,
      aiPolicy: input.aiPolicy,
      confirmQueries: input.confirmQueries,
      ...(input.secretCatalogs === undefined ? {} : { secretCatalogs: input.secretCatalogs }),
      ...(input.maskingRules === undefined
        ? {}
        : { maskingRules: input.maskingRules.map((rule) => ({ pattern: rule.pattern.trim(), action: rule.action })) }),
      // an empty colour is undefined, so an edit removes it (Connections drops undefined keys)
      ...(input.color === undefined ? {} : { color: input.color.trim() === "" ? undefined : input.color.trim() }),
      ...(input.production === undefined ? {} : { production: input.production }),
      // an empty group is undefined, so an edit takes the connection out of its group
      ...(input.group === undefined ? {} : { group: input.group.trim() === "" ? undefined : input.group.trim() })
    }
    switch (input.type) {
      case "sqlite":
        return {
          ...common,
          type: "sqlite" as const,
          path: yield* required(input.path, "Enter the path of the SQLite database file.")
        }
      case "postgresql":
        return {
          ...common,
          type: "postgresql" as const,
          host: yield* required(input.host, "Enter the PostgreSQL host (for example 127.0.0.1)."),
          port: input.port ?? 5432,
          database: yield* required(input.database, "Enter the database name."),
          user: yield* required(input.user, "Enter the user name."),
          ...(input.password === undefined || input.password === "" ? {} : { password: input.password }),
          ...(input.sslMode === undefined ? {} : { sslMode: input.sslMode as "prefer" }),
          ...tlsInput(input),
          ...costInput(input),
          ...sshFromUi(input.ssh, undefined)
        }
      case "mysql":
        return {
          ...common,
          type: "mysql" as const,
          host: yield* required(input.host, "Enter the MySQL or MariaDB host (for example 127.0.0.1)."),
          port: input.port ?? 3306,
          ...(input.database === undefined || input.database.trim() === "" ? {} : { database: input.database.trim() }),
          user: yield* required(input.user, "Enter the user name."),
          ...(input.password === undefined || input.password === "" ? {} : { password: input.password }),
          ...(input.sslMode === undefined ? {} : { sslMode: input.sslMode as "preferred" }),
          ...tlsInput(input),
          ...costInput(input),
          ...sshFromUi(input.ssh, undefined)
        }
      case "search": {
        const apiKey = input.apiKey === undefined || input.apiKey === ""
          ? (editing
            ? undefined
            : yield* required(undefined, "Enter the API key; it is the only credential Typesense has."))
          : input.apiKey
        return {
          ...common,
          type: "search" as const,
          host: yield* required(input.host, "Enter the Typesense host."),
          port: input.port ?? (input.sslMode === undefined || input.sslMode === "Disabled" ? 8108 : 443),
          ...(apiKey === undefined ? {} : { apiKey }),
          sslMode: (input.sslMode ?? "Disabled") as "Disabled",
          skipTlsVerification: input.skipTlsVerification ?? false,
          ...clusterInput(input)
        }
      }
    }
  })

export const ConnectionsHandlers = HttpApiBuilder.group(UiApi, "connections", (handlers) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const registry = yield* DriverRegistry
    const sessions = yield* UiSessions
    const drivers = yield* Drivers
    return handlers
      .handle("list", () => Effect.map(connections.list, (all) => all.map(toUiConnection)))
      .handle("add", ({ payload }) =>
        forUi(Effect.gen(function*() {
          yield* registry.requireForNewConnection(payload.type)
          const fields = yield* connectionFields(payload, false)
          return toUiConnection(yield* connections.add(fields as NewConnection))
        })))
      .handle("update", ({ path, payload }) =>
        forUi(Effect.gen(function*() {
          const existing = yield* connections.get(path.id)
          if (existing === undefined) return yield* notFound("This connection")
          if (existing.type !== payload.type) {
            return yield* new UiError({
              message: "The type of a saved connection cannot change; add a new connection instead."
            })
          }
          const fields = yield* connectionFields(payload, true)
          // An SSH password or passphrase left empty keeps the stored one.
          const stored = existing.type === "postgresql" || existing.type === "mysql" ? existing.ssh : undefined
          const ssh = payload.ssh === undefined ? {} : sshFromUi(payload.ssh, stored)
          return toUiConnection(yield* connections.update(path.id, { ...fields, ...ssh } as Partial<NewConnection>))
        })))
      .handle("remove", ({ path }) => forUi(Effect.asVoid(connections.remove(path.id))))
      .handle("test", ({ path }) =>
        forUi(Effect.gen(function*() {
          const connection = yield* sessions.connection(path.id)
          const status = yield* sessions.status(connection)
          return status
        })))
      .handle("testInput", ({ payload }) =>
        forUi(Effect.gen(function*() {
          const existing = payload.id === undefined ? undefined : yield* connections.get(payload.id)
          if (payload.connection.type === "search") {
            if (existing !== undefined) return yield* sessions.status(existing)
            return { ok: false, message: "Save the Typesense connection first, then Test it from the list." }
          }
          const fields = yield* connectionFields(payload.connection, existing !== undefined)
          // the form's fields over the saved ones (a password left empty keeps the saved one), under an id of its own
          const probe = yield* Schema.decodeUnknown(Connection)({
            ...(existing === undefined ? {} : Schema.encodeSync(Connection)(existing)),
            ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
            id: `probe-${randomUUID()}`
          })
          return yield* sessions.status(probe).pipe(Effect.ensuring(drivers.release(probe.id)))
        })))
      .handle("drivers", () => registry.list)
      .handle("enableDriver", ({ path }) =>
        forUi(Effect.gen(function*() {
          if (path.type !== "search") {
            return yield* new UiError({ message: `${path.type} is built in; nothing to install.` })
          }
          yield* registry.enable("search")
          return yield* registry.list
        })))
  }))
