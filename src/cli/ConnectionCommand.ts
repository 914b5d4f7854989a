import { Args, Command, Options } from "@effect/cli"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { connectionFlagHelp, fieldWords } from "./ConnectionFlagHelp.ts"
import { CONNECTION_TYPES, type ConnectionTypeSpec, type FieldSpec } from "./ConnectionFields.ts"
import { lazyHandler } from "./Lazy.ts"
import { sshOptions } from "./SshFlags.ts"

const handlers = () => import("./handlers/Connection.ts")
const connection = Args.text({ name: "connection" }).pipe(
  Args.withDescription("the connection's id or exact name (dbdesk connection list)")
)

const list = Command.make("list", { home, json }, lazyHandler(handlers, (m) => m.list)).pipe(
  Command.withDescription(described(
    "List the configured connections (never their passwords or API keys).",
    ["dbdesk connection list", "dbdesk connection list --json"]
  ))
)

// --- add: one subcommand per connection type of the Connection schema, with the type's own fields as flags ---

const fieldOption = (spec: ConnectionTypeSpec, field: FieldSpec, urlCanGive = false): Options.Options<unknown> => {
  const named = ((): Options.Options<unknown> => {
    switch (field.kind) {
      case "integer":
        return Options.integer(field.flag)
      case "number":
        return Options.float(field.flag)
      case "boolean":
        return Options.boolean(field.flag)
      case "choice":
        return Options.choice(field.flag, field.choices)
      default:
        return Options.text(field.flag)
    }
  })().pipe(
    Options.withDescription(
      `${connectionFlagHelp(spec, field)}${urlCanGive ? " (required unless the URL gives it)" : ""}`
    )
  )
  return field.optional && field.kind !== "boolean" ? Options.optional(named) : named
}

/** A secret never has a flag that takes its value: only where to read it from. */
const secretOptions = (field: FieldSpec) =>
  Options.all({
    env: Options.text(`${field.flag}-env`).pipe(
      Options.withDescription(`read the ${fieldWords(field.name)} from this environment variable`),
      Options.optional
    ),
    stdin: Options.boolean(`${field.flag}-stdin`).pipe(
      Options.withDescription(`read the ${fieldWords(field.name)} from standard input`)
    )
  })

const examplesFor = (spec: ConnectionTypeSpec): ReadonlyArray<string> => {
  const required = spec.fields.filter((field) => !field.optional && field.kind !== "secret")
  const sample = (field: FieldSpec) =>
    field.kind === "integer"
      ? (spec.type === "search" ? "8108" : "5432")
      : field.kind === "choice"
      ? field.choices[0] ?? ""
      : field.name === "name"
      ? "\"My database\""
      : field.name === "path"
      ? "./data.db"
      : `<${field.name}>`
  const secret = spec.fields.find((field) => field.kind === "secret")
  return [
    `dbdesk connection add ${spec.type} ${required.map((field) => `--${field.flag} ${sample(field)}`).join(" ")}${
      secret === undefined ? "" : ` --${secret.flag}-env DB_SECRET`
    }`,
    ...(secret === undefined
      ? []
      : [`printf '%s' "$DB_SECRET" | dbdesk connection add ${spec.type} … --${secret.flag}-stdin`])
  ]
}

/** D-65: `--mask users.password_hash --hide '*.ssn'`, each repeatable; they become the masking rules. */
const rulesOptions = Options.all({
  mask: Options.text("mask").pipe(
    Options.withDescription(
      "mask this column for AI clients (table.column or schema.table.column, * for any characters; repeatable)"
    ),
    Options.repeated
  ),
  hide: Options.text("hide").pipe(
    Options.withDescription("hide this column from AI clients (same patterns; repeatable)"),
    Options.repeated
  )
})

/** Types a connection URL can describe: with --url their other settings may come from the URL, so none is required but the name. */
const URL_TYPES: ReadonlySet<string> = new Set(["postgresql", "mysql", "sqlite"])

const urlOption = Options.text("url").pipe(
  Options.withDescription(
    "take the settings from a connection URL (postgresql://, postgres://, mysql://, mariadb://, sqlite:); flags given too win; a password in it is stored as a secret"
  ),
  Options.optional
)

const addType = (spec: ConnectionTypeSpec) => {
  const takesUrl = URL_TYPES.has(spec.type)
  const plain = spec.fields
    .filter((field) => field.kind !== "secret" && field.kind !== "rules")
    .map((field) => ({
      field: takesUrl && field.name !== "name" ? { ...field, optional: true } : field,
      urlCanGive: takesUrl && field.name !== "name" && !field.optional
    }))
  const secrets = spec.fields.filter((field) => field.kind === "secret")
  const config = {
    home,
    json,
    url: takesUrl ? urlOption : Options.none,
    fields: Options.all(
      Object.fromEntries(plain.map(({ field, urlCanGive }) => [field.name, fieldOption(spec, field, urlCanGive)]))
    ),
    secrets: secrets.length === 0
      ? Options.none
      : Options.all(Object.fromEntries(secrets.map((field) => [field.name, secretOptions(field)]))),
    rules: spec.fields.some((field) => field.kind === "rules") ? rulesOptions : Options.none,
    ssh: spec.type === "postgresql" || spec.type === "mysql" ? sshOptions : Options.none
  }
  return Command.make(spec.type, config, lazyHandler(handlers, (m) => m.add(spec))).pipe(
    Command.withDescription(described(
      `Add a ${spec.type} connection. Secrets come from a prompt, --…-stdin or --…-env, never from the command line.`,
      examplesFor(spec)
    ))
  )
}

const add = Command.make("add").pipe(
  Command.withDescription(
    described(`Add a connection of one of the types: ${CONNECTION_TYPES.map((spec) => spec.type).join(", ")}.`, [
      "dbdesk connection add sqlite --name Shop --path ./shop.db",
      "dbdesk connection add postgresql --help"
    ])
  ),
  Command.withSubcommands(
    CONNECTION_TYPES.map(addType) as unknown as [ReturnType<typeof addType>, ...Array<ReturnType<typeof addType>>]
  )
)

const test = Command.make("test", { home, json, connection }, lazyHandler(handlers, (m) => m.test)).pipe(
  Command.withDescription(described(
    "Open a connection and report whether its database answers, in plain words; exit 1 when it does not.",
    ["dbdesk connection test \"Sample (SQLite)\"", "dbdesk connection test 6f1c… --json"]
  ))
)

const url = Command.make("url", { home, connection }, lazyHandler(handlers, (m) => m.url)).pipe(
  Command.withDescription(described(
    "Print a connection as a URL (postgresql://, mysql://, sqlite:), without its password: dbdesk keeps that.",
    ["dbdesk connection url Prod", "psql \"$(dbdesk connection url Prod)\""]
  ))
)

const remove = Command.make("remove", { home, json, connection }, lazyHandler(handlers, (m) => m.remove)).pipe(
  Command.withDescription(described(
    "Remove a connection from dbdesk (the database itself is not touched).",
    ["dbdesk connection remove \"Old staging\""]
  ))
)

/** `dbdesk connection list|add|test|url|remove`. */
export const connectionCommand = Command.make("connection").pipe(
  Command.withDescription(described("Manage the database connections in connections.json.", [
    "dbdesk connection list",
    "dbdesk connection add postgresql --name Prod --host db.local --database app --user me --password-env PGPASSWORD",
    "dbdesk connection test Prod"
  ])),
  Command.withSubcommands([list, add, test, url, remove])
)
