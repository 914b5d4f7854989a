import { Prompt } from "@effect/cli"
import { Console, Effect, Either, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import * as path from "node:path"
import { text as readStream } from "node:stream/consumers"
import { Connection, TLS_FILE_FIELDS } from "../../domain/Connection.ts"
import { connectionUrl, parseConnectionUrl } from "../../domain/ConnectionUrl.ts"
import { Connections, type ConnectionsShape } from "../../services/Connections.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { probeConnections } from "../ConnectionProbe.ts"
import { type ConnectionTypeSpec, type FieldSpec, publicView, where } from "../ConnectionFields.ts"
import { connectionChoices, filesOf, findConnection, liveServer, readConnections } from "../SupportFiles.ts"
import { failingPlainly, printJson, table } from "./Output.ts"
import { type SshFlags, sshFromFlags } from "../SshFlags.ts"

type Home = Option.Option<string>

/** All connections, read-only; before the first start there are none yet. */
const loadAll = (home: Home) =>
  Effect.map(readConnections(filesOf(Option.getOrUndefined(home)).connections), (all) => all ?? [])

const resolveOne = (home: Home, idOrName: string) =>
  Effect.flatMap(loadAll(home), (all) => {
    const found = findConnection(all, idOrName)
    return found === undefined
      ? Effect.fail(
        new Error(`No connection has the id or name ${JSON.stringify(idOrName)}; ${connectionChoices(all)}`)
      )
      : Effect.succeed(found)
  })

/** A running server keeps connections.json in memory and writes it back: editing it underneath would be lost. */
const refuseWhileServing = (home: Home) =>
  Effect.flatMap(liveServer(filesOf(Option.getOrUndefined(home)).handshake), (running) =>
    running === undefined
      ? Effect.void
      : Effect.fail(
        new Error(
          `dbdesk serve is running (pid ${running.pid}) and owns connections.json: change connections in its UI (${running.uiUrl}), or stop it and run this again`
        )
      ))

/** The file store, opened only to write (it creates the sample on first use, as serve does). */
const withStore = <A, E>(home: Home, use: (store: ConnectionsShape) => Effect.Effect<A, E>) =>
  Effect.flatMap(Connections, use).pipe(
    Effect.provide(Connections.layerFile.pipe(Layer.provide(SupportPaths.layer(Option.getOrUndefined(home)))))
  )

/** `dbdesk connection list`: never a password or API key. */
export const list = (options: { readonly home: Home; readonly json: boolean }) =>
  failingPlainly(Effect.gen(function*() {
    const all = yield* loadAll(options.home)
    if (options.json) return yield* printJson(all.map(publicView))
    if (all.length === 0) {
      return yield* Console.log(
        "No connections yet: dbdesk serve creates the sample on its first start, or add one with dbdesk connection add."
      )
    }
    yield* Console.log(table([
      ["ID", "NAME", "TYPE", "WHERE", "EXTERNAL ACCESS", "AI POLICY", "CONFIRM"],
      ...all.map((
        connection
      ) => [
        connection.id,
        connection.name,
        connection.type,
        where(connection),
        connection.externalAccess,
        connection.aiPolicy,
        connection.confirmQueries
      ])
    ]))
  }))

export interface SecretSource {
  readonly env: Option.Option<string>
  readonly stdin: boolean
}

const readSecret = (spec: ConnectionTypeSpec, field: FieldSpec, from: SecretSource, name: string, prompt: boolean) =>
  Effect.gen(function*() {
    if (Option.isSome(from.env)) {
      const value = process.env[from.env.value]
      if (value === undefined || value === "") {
        return yield* Effect.fail(
          new Error(`--${field.flag}-env: the environment variable ${from.env.value} is not set`)
        )
      }
      return value
    }
    if (from.stdin) return (yield* Effect.promise(() => readStream(process.stdin))).replace(/\r?\n$/, "")
    if (!prompt) return undefined
    if (process.stdin.isTTY) {
      const typed = Redacted.value(
        yield* Prompt.password({ message: `${field.name} for ${name}${field.optional ? " (empty for none)" : ""}` })
      )
      return typed === "" && field.optional ? undefined : typed
    }
    if (field.optional) return undefined
    return yield* Effect.fail(
      new Error(
        `a ${spec.type} connection needs its ${field.name}: pass --${field.flag}-env VARIABLE or --${field.flag}-stdin (never the value itself on the command line)`
      )
    )
  })

/** The schema's objections, by flag: `--port: Expected a number between 1 and 65535, actual 70000`. */
const flagProblems = (spec: ConnectionTypeSpec, error: ParseResult.ParseError) => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).filter((issue) =>
    !issue.message.startsWith("Expected undefined")
  )
  return [
    ...new Set(issues.map((issue) => {
      const field = spec.fields.find((candidate) => candidate.name === issue.path[0])
      const flag = field?.kind === "rules"
        ? "--mask/--hide"
        : field === undefined
        ? String(issue.path[0] ?? "connection")
        : `--${field.flag}`
      return issue.message === "is missing"
        ? `${flag} is missing (give it, or a --url that has it)`
        : `${flag}: ${issue.message}`
    }))
  ].join("; ")
}

/** `dbdesk connection add <type>` (D-79): the type's fields from its flags, secrets from a prompt, stdin or an env var. */
export const add = (spec: ConnectionTypeSpec) =>
(
  options: {
    readonly home: Home
    readonly json: boolean
    readonly url: unknown
    readonly fields: unknown
    readonly secrets: unknown
    readonly rules: unknown
    readonly ssh?: unknown
  }
) =>
  failingPlainly(Effect.gen(function*() {
    const input: Record<string, unknown> = { type: spec.type, ...(yield* fromUrl(spec, options.url)) }
    const urlPassword = input["password"]
    for (
      const field of spec.fields.filter((candidate) => candidate.kind !== "secret" && candidate.kind !== "rules")
    ) {
      const raw = (options.fields as Record<string, unknown>)[field.name]
      const value = Option.isOption(raw) ? Option.getOrUndefined(raw) : raw
      if (value === undefined || (field.kind === "boolean" && value === false)) continue
      input[field.name] = value
    }
    // Files are kept by absolute path: the server may run from another directory.
    for (const name of ["path", ...TLS_FILE_FIELDS]) {
      if (typeof input[name] === "string") input[name] = path.resolve(input[name])
    }
    const rules = options.rules as
      | { readonly mask?: ReadonlyArray<string>; readonly hide?: ReadonlyArray<string> }
      | undefined
    const maskingRules = [
      ...(rules?.mask ?? []).map((pattern) => ({ pattern, action: "mask" })),
      ...(rules?.hide ?? []).map((pattern) => ({ pattern, action: "hide" }))
    ]
    if (maskingRules.length > 0) input["maskingRules"] = maskingRules
    const name = String(input["name"] ?? spec.type)
    for (const field of spec.fields.filter((candidate) => candidate.kind === "secret")) {
      // A password from the URL is kept unless -env/-stdin say otherwise; a key's passphrase is asked only with a key.
      const prompt = input[field.name] === undefined &&
        (field.name !== "sslKeyPassphrase" || input["sslKey"] !== undefined)
      const value = yield* readSecret(
        spec,
        field,
        (options.secrets as Record<string, SecretSource>)[field.name]!,
        name,
        prompt
      )
      if (value !== undefined) input[field.name] = value
    }
    const ssh = typeof options.ssh === "object" && options.ssh !== null
      ? yield* sshFromFlags(options.ssh as SshFlags)
      : undefined
    if (ssh !== undefined) input["ssh"] = ssh
    const checked = Schema.decodeUnknownEither(Connection)({ ...input, id: "new" })
    if (Either.isLeft(checked)) {
      return yield* Effect.fail(
        new Error(`This ${spec.type} connection is not valid: ${flagProblems(spec, checked.left)}`)
      )
    }
    yield* refuseWhileServing(options.home)
    const added = yield* withStore(options.home, (store) => store.add(input as never))
    if (urlPassword !== undefined && input["password"] === urlPassword) {
      yield* Console.error(
        "The password in the URL is stored as a secret and never shown; a command line can be seen by other programs, so prefer --password-env next time."
      )
    }
    if (options.json) return yield* printJson(publicView(added))
    yield* Console.log(
      `Added ${added.type} connection "${added.name}" (id ${added.id}). Check it with: dbdesk connection test ${added.id}`
    )
  }))

/** The settings a `--url` gives (flags given too win); its password goes to the store and is never printed. */
const fromUrl = (spec: ConnectionTypeSpec, url: unknown) =>
  Effect.gen(function*() {
    const text = Option.isOption(url) ? Option.getOrUndefined(url as Option.Option<string>) : undefined
    if (text === undefined) return {}
    const parsed = parseConnectionUrl(text)
    if (!parsed.ok) return yield* Effect.fail(new Error(`--url: ${parsed.error}`))
    const { type, ...fields } = parsed.fields
    if (type !== spec.type) {
      return yield* Effect.fail(
        new Error(`--url: this is a ${type} URL; add it with dbdesk connection add ${type} --url …`)
      )
    }
    if (parsed.ignored.length > 0) {
      yield* Console.error(`dbdesk does not use these URL parameters and left them out: ${parsed.ignored.join(", ")}`)
    }
    return fields
  })

/** `dbdesk connection url`: the connection as a URL without its password (it stays in dbdesk). */
export const url = (options: { readonly home: Home; readonly connection: string }) =>
  failingPlainly(Effect.gen(function*() {
    const connection = yield* resolveOne(options.home, options.connection)
    const text = connectionUrl(connection)
    if (text === undefined) {
      return yield* Effect.fail(
        new Error(`"${connection.name}" is a ${connection.type} connection, which has no URL form`)
      )
    }
    yield* Console.log(text)
  }))

/** `dbdesk connection test`: exit 1 when the database does not answer. */
export const test = (options: { readonly home: Home; readonly json: boolean; readonly connection: string }) =>
  failingPlainly(Effect.gen(function*() {
    const connection = yield* resolveOne(options.home, options.connection)
    // On a terminal an unknown SSH host key is asked about here; otherwise it is refused with how to accept it.
    const { HostKeyQuestions, terminalHostKeyQuestions } = yield* Effect.promise(() =>
      import("../../services/ssh/HostKeys.ts")
    )
    const questions = process.stdin.isTTY ? terminalHostKeyQuestions() : HostKeyQuestions.nobody
    const [result] = yield* probeConnections([connection]).pipe(
      Effect.provide(Layer.merge(questions, SupportPaths.layer(Option.getOrUndefined(options.home))))
    )
    if (options.json) yield* printJson(result)
    else {yield* Console.log(
        `${result!.ok ? "ok" : "failed"}: ${connection.name} (${connection.type}): ${result!.message}`
      )}
    if (!result!.ok) process.exitCode = 1
  }))

/** `dbdesk connection remove`: the database itself is untouched. */
export const remove = (options: { readonly home: Home; readonly json: boolean; readonly connection: string }) =>
  failingPlainly(Effect.gen(function*() {
    const connection = yield* resolveOne(options.home, options.connection)
    yield* refuseWhileServing(options.home)
    yield* withStore(options.home, (store) => store.remove(connection.id))
    if (options.json) return yield* printJson(publicView(connection))
    yield* Console.log(
      `Removed connection "${connection.name}" (id ${connection.id}). Its database itself is untouched.`
    )
  }))
