import { Either, Redacted, Schema, SchemaAST } from "effect"
import { Connection } from "../domain/Connection.ts"
import type { ConnectionTypeSpec, FieldSpec } from "./ConnectionFields.ts"

/**
 * What each `dbdesk connection add <type>` flag means, in plain words, and the value a connection gets without it.
 * The meaning is the field's schema description when it has one, else the words below, else the field's name; the
 * default is read from the schema itself (a connection decoded without the field shows what fills it in), so a new
 * field with a default documents its default without a second list.
 */
const MEANINGS: Readonly<Record<string, string>> = {
  name: "the name shown in the UI, in AI clients and in dbdesk connection list",
  externalAccess: "what AI clients may do: readOnly, readWrite, or blocked (hidden from them)",
  aiPolicy: "AI clients' access: askEachTime (you allow each client's first use), alwaysAllow, or never (hidden)",
  confirmQueries: "which statements need your approval: writes, or all (reads too)",
  secretCatalogs: "tables that hold password hashes and other secrets: closed (refused) or open",
  color: "a colour for the connection's row and tabs in the UI (#rrggbb)",
  production: "mark it as a production database: its row and tabs in the UI say so",
  group: "the group the UI's connection list shows it under",
  path: "the SQLite database file",
  host: "host name or address of the server",
  port: "TCP port",
  database: "the database to open",
  user: "account name",
  sslMode: "TLS mode",
  skipTlsVerification: "accept any TLS certificate (only for a test server)",
  nodes: "more nodes of the cluster, comma-separated URLs",
  nearestNode: "the node to ask first, a URL",
  healthcheckIntervalSeconds: "seconds before a failed node is tried again",
  numRetries: "how many times a failed request is retried",
  retryIntervalSeconds: "seconds between retries",
  connectionTimeoutSeconds: "seconds to wait for a node to answer",
  randomizeNodes: "shuffle the nodes once, so that clients spread over the cluster"
}

const sample = (field: FieldSpec): unknown => {
  switch (field.kind) {
    case "integer":
    case "number":
      return 1
    case "boolean":
      return false
    case "choice":
      return field.choices[0]
    case "secret":
      return "x"
    case "rules":
      return []
    default:
      return field.name === "path" ? "/x" : "x"
  }
}

const defaults = new Map<string, Readonly<Record<string, unknown>>>()

/** The values the schema fills in for the optional fields of a connection type. */
const defaultsOf = (spec: ConnectionTypeSpec): Readonly<Record<string, unknown>> => {
  const known = defaults.get(spec.type)
  if (known !== undefined) return known
  const input: Record<string, unknown> = { id: "x", type: spec.type }
  for (const field of spec.fields) if (!field.optional) input[field.name] = sample(field)
  const decoded = Schema.decodeUnknownEither(Connection)(input)
  if (Either.isLeft(decoded)) return {}
  const result: Record<string, unknown> = {}
  for (const field of spec.fields) {
    const value = (decoded.right as Record<string, unknown>)[field.name]
    if (field.optional && value !== undefined && !Redacted.isRedacted(value)) result[field.name] = value
  }
  defaults.set(spec.type, result)
  return result
}

const schemaDescription = (spec: ConnectionTypeSpec, name: string): string | undefined => {
  const member = Connection.members.find((candidate) => candidate.fields.type.literals[0] === spec.type)
  if (member === undefined) return undefined
  const literal = SchemaAST.typeAST(member.ast) as SchemaAST.TypeLiteral
  const property = literal.propertySignatures.find((signature) => signature.name === name)
  if (property === undefined) return undefined
  let ast: SchemaAST.AST = property.type
  if (SchemaAST.isUnion(ast)) ast = ast.types.find((type) => !SchemaAST.isUndefinedKeyword(type)) ?? ast
  const found = SchemaAST.getDescriptionAnnotation(ast)
  // Effect's own refinements describe themselves ("a non empty string", "a number between 1 and 65535"): not a meaning.
  return found._tag === "Some" && !/^an? /.test(found.value) ? found.value : undefined
}

/** A field's name in words: `apiKey` → "API key", `password` → "password". */
export const fieldWords = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`).replace(/^api\b/, "API")

/** `--port`'s help for a postgresql connection: "TCP port (default: 5432)". */
export const connectionFlagHelp = (spec: ConnectionTypeSpec, field: FieldSpec): string => {
  const meaning = schemaDescription(spec, field.name) ?? MEANINGS[field.name] ?? field.name
  const choices = field.kind === "choice" && !field.choices.every((choice) => meaning.includes(choice))
    ? `: ${field.choices.join(", ")}`
    : ""
  const fallback = defaultsOf(spec)[field.name]
  const shown = typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean"
    ? String(fallback)
    : undefined
  return `${meaning}${choices}${
    shown === undefined || /\(default/i.test(meaning) || field.kind === "boolean" ? "" : ` (default: ${shown})`
  }`
}
