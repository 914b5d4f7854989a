import { Schema, SchemaAST } from "effect"
import { Connection } from "../domain/Connection.ts"

/**
 * The fields of each connection type, read from the `Connection` schema itself, so `dbdesk
 * connection add <type>` offers every type the schema knows (a new driver's type appears with its
 * own flags) without a list kept by hand. Secrets (`Redacted` fields) never become a flag that
 * takes the value: they come from a prompt, stdin or an environment variable.
 */
export type FieldKind = "text" | "integer" | "number" | "boolean" | "choice" | "secret" | "rules"

export interface FieldSpec {
  /** The property of the connection (camelCase). */
  readonly name: string
  /** The command-line flag, kebab-case. */
  readonly flag: string
  readonly kind: FieldKind
  readonly choices: ReadonlyArray<string>
  /** Optional in connections.json (absent, or completed by a default). */
  readonly optional: boolean
}

export interface ConnectionTypeSpec {
  readonly type: string
  readonly fields: ReadonlyArray<FieldSpec>
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)

const baseOf = (ast: SchemaAST.AST): SchemaAST.AST => (SchemaAST.isRefinement(ast) ? baseOf(ast.from) : ast)

/** Whether a number schema is refined to whole numbers (Schema.Int) anywhere in its chain. */
const isInt = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isRefinement(ast) &&
  (ast.annotations[SchemaAST.SchemaIdAnnotationId] === Schema.IntSchemaId || isInt(ast.from))

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<string> | undefined => {
  const base = baseOf(ast)
  if (SchemaAST.isLiteral(base) && typeof base.literal === "string") return [base.literal]
  if (!SchemaAST.isUnion(base)) return undefined
  const values = base.types.map((
    member
  ) => (SchemaAST.isLiteral(member) && typeof member.literal === "string" ? member.literal : undefined))
  return values.every((value): value is string => value !== undefined) ? values : undefined
}

const isList = (ast: SchemaAST.AST): boolean => {
  const base = baseOf(ast)
  return SchemaAST.isTupleType(base) || (SchemaAST.isUnion(base) && base.types.some(isList))
}

const kindOf = (
  ast: SchemaAST.AST,
  encoded: SchemaAST.AST | undefined
): { readonly kind: FieldKind; readonly choices: ReadonlyArray<string> } => {
  if (SchemaAST.isDeclaration(ast)) return { kind: "secret", choices: [] }
  // D-65: the one field stored as a list, masking rules, takes repeatable --mask / --hide flags (a cluster's
  // nodes are a list too, but stored and typed as one comma-separated text).
  if (encoded !== undefined && isList(encoded)) return { kind: "rules", choices: [] }
  const choices = literalsOf(ast)
  if (choices !== undefined) return { kind: "choice", choices }
  const base = baseOf(ast)
  if (SchemaAST.isBooleanKeyword(base)) return { kind: "boolean", choices: [] }
  if (SchemaAST.isNumberKeyword(base)) return { kind: isInt(ast) ? "integer" : "number", choices: [] }
  return { kind: "text", choices: [] }
}

const typeSpec = (member: Schema.Schema.AnyNoContext): ConnectionTypeSpec => {
  const decoded = SchemaAST.typeAST(member.ast) as SchemaAST.TypeLiteral
  const encoded = SchemaAST.encodedAST(member.ast) as SchemaAST.TypeLiteral
  const typeField = decoded.propertySignatures.find((field) => field.name === "type")
  const type = typeField === undefined ? undefined : literalsOf(typeField.type)?.[0]
  if (type === undefined) throw new Error("every connection type has a literal `type` field")
  const fields = decoded.propertySignatures
    // The SSH tunnel is one nested field with flags of its own (SshFlags.ts).
    .filter((field) => field.name !== "id" && field.name !== "type" && field.name !== "ssh")
    .map((field): FieldSpec => {
      const name = String(field.name)
      const stored = encoded.propertySignatures.find((candidate) => candidate.name === field.name)
      return {
        name,
        flag: kebab(name),
        ...kindOf(field.type, stored?.type),
        optional: stored?.isOptional ?? field.isOptional
      }
    })
  return { type, fields }
}

export const CONNECTION_TYPES: ReadonlyArray<ConnectionTypeSpec> = Connection.members.map((member) =>
  typeSpec(member as Schema.Schema.AnyNoContext)
)

/** The secret fields of a connection type (listed as `hasPassword`-style booleans, never shown). */
export const secretFields = (type: string): ReadonlyArray<string> =>
  CONNECTION_TYPES.find((spec) => spec.type === type)?.fields.filter((field) => field.kind === "secret").map((field) =>
    field.name
  ) ?? []

/**
 * What `connection list --json` shows of a connection: its settings with every secret replaced by
 * `has<Secret>: true|false` (as the UI does), so no secret reaches a terminal or a script.
 */
export const publicView = (connection: Connection): Record<string, unknown> => {
  const encoded = Schema.encodeSync(Connection)(connection) as Record<string, unknown>
  const view: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(encoded)) {
    if (secretFields(connection.type).includes(key)) continue
    view[key] = value
  }
  for (const secret of secretFields(connection.type)) {
    view[`has${secret[0]!.toUpperCase()}${secret.slice(1)}`] = encoded[secret] !== undefined
  }
  if (typeof view["ssh"] === "object" && view["ssh"] !== null) {
    const { password, passphrase, ...ssh } = view["ssh"] as Record<string, unknown>
    view["ssh"] = { ...ssh, hasPassword: password !== undefined, hasPassphrase: passphrase !== undefined }
  }
  return view
}

/** Where a connection points: its file, or host:port/database. */
export const where = (connection: Connection): string => {
  const view = publicView(connection)
  if (typeof view["path"] === "string") return view["path"]
  const address = [view["host"], view["port"]].filter((part) => part !== undefined).join(":")
  return typeof view["database"] === "string" ? `${address}/${view["database"]}` : address
}
