import { Either, Schema } from "effect"
import type { Json, JsonObject } from "./Json.ts"
import { FilterLogic, FilterOperator, SortKey } from "./SqlBrowse.ts"

/** The types a curated tool's parameter may take; each becomes a JSON type of the tool's input schema. */
export const ParameterType = Schema.Literal("text", "integer", "number", "boolean", "date", "timestamp", "enum")
export type ParameterType = typeof ParameterType.Type

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const Scalar = Schema.Union(Schema.String, Schema.Number, Schema.Boolean)

export const CuratedParameter = Schema.Struct({
  name: Schema.String,
  type: ParameterType,
  description: optional(Schema.String),
  /** A parameter without a default is required unless `required` is false (then it binds NULL when left out). */
  required: optional(Schema.Boolean),
  default: optional(Scalar),
  /** integer/number: bounds of the value; text: bounds of its length. */
  min: optional(Schema.Number),
  max: optional(Schema.Number),
  /** text: a regular expression the whole value must match. */
  pattern: optional(Schema.String),
  /** enum: the values accepted. */
  values: optional(Schema.Array(Schema.String)),
  /** The value is replaced by "[redacted]" in the activity log. */
  secret: optional(Schema.Boolean)
})
export type CuratedParameter = typeof CuratedParameter.Type

/** A filter of a search-engine tool: a `value` written `:name` is the argument of that parameter, placed typed. */
export const CuratedSearchFilter = Schema.Struct({
  column: Schema.String,
  operator: FilterOperator,
  value: optional(Scalar),
  second_value: optional(Scalar)
})
export type CuratedSearchFilter = typeof CuratedSearchFilter.Type

/** A search-engine tool: a collection browsed with filters the filter compiler turns into `filter_by`. */
export const CuratedSearch = Schema.Struct({
  collection: Schema.String,
  filters: optional(Schema.Array(CuratedSearchFilter)),
  logic: optional(FilterLogic),
  sort: optional(Schema.Array(SortKey)),
  limit: optional(Schema.Int.pipe(Schema.between(1, 250)))
})
export type CuratedSearch = typeof CuratedSearch.Type

/** `:name` as a whole filter value names a parameter. */
export const PARAMETER_REFERENCE = /^:([A-Za-z_][A-Za-z0-9_]*)$/

export const CuratedToolDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /** A connection id or name. */
  connection: Schema.String,
  /** A SQL connection's statement; a search-engine connection's tool has `search` instead. */
  sql: optional(Schema.String),
  search: optional(CuratedSearch),
  parameters: optional(Schema.Array(CuratedParameter)),
  /** A tool that changes data runs without the approval dialog; each run says so in the activity log. */
  approvedInAdvance: optional(Schema.Boolean),
  disabled: optional(Schema.Boolean)
})
export type CuratedToolDefinition = typeof CuratedToolDefinition.Type

/** `tools.json` in the support directory: a file a team may keep in version control (docs/curated-tools.md). */
export const CuratedToolsFile = Schema.Struct({
  version: Schema.Literal(1),
  tools: Schema.Array(CuratedToolDefinition)
})
export type CuratedToolsFile = typeof CuratedToolsFile.Type

/**
 * MCP's tool-name rule (1 to 128 characters of letters, digits, `_`, `-` and `.`): the name also travels in the
 * `Mcp-Name` header, so nothing outside those characters is accepted.
 */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/

const isCalendarDate = (text: string): boolean => {
  const match = DATE.exec(text)
  if (match === null) return false
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
  return date.toISOString().slice(0, 10) === text
}

/** Why a value is not one the parameter accepts, or undefined. */
export const valueProblem = (parameter: CuratedParameter, value: unknown): string | undefined => {
  const kind = parameter.type
  const bounds = (measured: number, what: string) =>
    parameter.min !== undefined && measured < parameter.min
      ? `${what} must be at least ${parameter.min}`
      : parameter.max !== undefined && measured > parameter.max
      ? `${what} must be at most ${parameter.max}`
      : undefined
  switch (kind) {
    case "integer":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return "expected a whole number"
      return bounds(value, "the value")
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number"
      return bounds(value, "the value")
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected true or false"
    case "date":
      return typeof value === "string" && isCalendarDate(value) ? undefined : "expected a date written YYYY-MM-DD"
    case "timestamp":
      return typeof value === "string" && TIMESTAMP.test(value) && isCalendarDate(value.slice(0, 10)) &&
          !Number.isNaN(Date.parse(value.replace(" ", "T")))
        ? undefined
        : "expected a timestamp written YYYY-MM-DDTHH:MM:SS (with Z or an offset if it has a zone)"
    case "enum":
      return typeof value === "string" && (parameter.values ?? []).includes(value)
        ? undefined
        : `expected one of ${(parameter.values ?? []).join(", ")}`
    case "text": {
      if (typeof value !== "string") return "expected a string"
      const length = bounds(value.length, "the length")
      if (length !== undefined) return length
      if (parameter.pattern !== undefined && !new RegExp(`^(?:${parameter.pattern})$`, "u").test(value)) {
        return `expected text matching ${parameter.pattern}`
      }
      return undefined
    }
  }
}

/** What is wrong with a definition's own fields (the statement is checked by the service, which knows the dialect). */
export const definitionProblems = (definition: CuratedToolDefinition): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (!TOOL_NAME.test(definition.name)) {
    problems.push(`the name ${JSON.stringify(definition.name)} must be 1 to 128 letters, digits, _, - or .`)
  }
  if (definition.description.trim() === "") problems.push("the description must say what the tool does")
  if ((definition.sql === undefined) === (definition.search === undefined)) {
    problems.push("a tool has either sql (a SQL connection) or search (a search-engine connection)")
  }
  if (definition.sql !== undefined && definition.sql.trim() === "") problems.push("the statement is empty")
  if (definition.search !== undefined) {
    const referenced = new Set(
      (definition.search.filters ?? []).flatMap((filter) => [filter.value, filter.second_value]).flatMap((value) => {
        const match = typeof value === "string" ? PARAMETER_REFERENCE.exec(value) : null
        return match === null ? [] : [match[1]!]
      })
    )
    const declared = new Set((definition.parameters ?? []).map((parameter) => parameter.name))
    for (const name of referenced) {
      if (!declared.has(name)) problems.push(`the filter value :${name} is not a declared parameter`)
    }
    for (const name of declared) {
      if (!referenced.has(name)) problems.push(`the parameter ${name} is not used as a filter value :${name}`)
    }
  }
  const seen = new Set<string>()
  for (const parameter of definition.parameters ?? []) {
    const where = `parameter ${parameter.name}`
    if (!PARAMETER_NAME.test(parameter.name)) {
      problems.push(`${where}: a name is letters, digits and _, not starting with a digit`)
    }
    if (seen.has(parameter.name)) problems.push(`${where} is declared twice`)
    seen.add(parameter.name)
    if (parameter.type === "enum" && (parameter.values ?? []).length === 0) {
      problems.push(`${where}: an enum lists its values`)
    }
    if (parameter.pattern !== undefined) {
      try {
        new RegExp(parameter.pattern, "u")
      } catch {
        problems.push(`${where}: the pattern is not a regular expression`)
      }
    }
    if (parameter.default !== undefined) {
      const problem = valueProblem(parameter, parameter.default)
      if (problem !== undefined) problems.push(`${where}: the default does not fit: ${problem}`)
    }
  }
  return problems
}

const parameterSchema = (parameter: CuratedParameter): JsonObject => {
  const base: Record<string, Json> = {}
  switch (parameter.type) {
    case "text":
      base["type"] = "string"
      if (parameter.min !== undefined) base["minLength"] = parameter.min
      if (parameter.max !== undefined) base["maxLength"] = parameter.max
      if (parameter.pattern !== undefined) base["pattern"] = `^(?:${parameter.pattern})$`
      break
    case "integer":
    case "number":
      base["type"] = parameter.type
      if (parameter.min !== undefined) base["minimum"] = parameter.min
      if (parameter.max !== undefined) base["maximum"] = parameter.max
      break
    case "boolean":
      base["type"] = "boolean"
      break
    case "date":
      base["type"] = "string"
      base["format"] = "date"
      break
    case "timestamp":
      base["type"] = "string"
      base["format"] = "date-time"
      break
    case "enum":
      base["type"] = "string"
      base["enum"] = [...(parameter.values ?? [])]
      break
  }
  if (parameter.description !== undefined) base["description"] = parameter.description
  if (parameter.default !== undefined) base["default"] = parameter.default
  return base
}

export const isRequired = (parameter: CuratedParameter): boolean =>
  parameter.default === undefined && parameter.required !== false

/** The tool's `inputSchema`, generated from its parameters' types. */
export const curatedInputSchema = (definition: CuratedToolDefinition): JsonObject => {
  const parameters = definition.parameters ?? []
  const required = parameters.filter(isRequired).map((parameter) => parameter.name)
  return {
    type: "object",
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameterSchema(parameter)])),
    ...(required.length === 0 ? {} : { required })
  }
}

/** The arguments checked against the parameters, defaults filled in; a list of problems a model can act on otherwise. */
export const decodeCuratedArguments = (
  definition: CuratedToolDefinition,
  raw: Readonly<Record<string, unknown>>
): Either.Either<Readonly<Record<string, Json>>, string> => {
  const parameters = definition.parameters ?? []
  const problems: Array<string> = []
  const values: Record<string, Json> = {}
  for (const key of Object.keys(raw)) {
    if (!parameters.some((parameter) => parameter.name === key)) {
      problems.push(
        `${key} is not an argument of ${definition.name}; it takes ${
          parameters.map((parameter) => parameter.name).join(", ") || "none"
        }`
      )
    }
  }
  for (const parameter of parameters) {
    const given = raw[parameter.name]
    if (given === undefined || given === null) {
      if (parameter.default !== undefined) values[parameter.name] = parameter.default
      else if (isRequired(parameter)) problems.push(`${parameter.name} is required (${parameter.type})`)
      else values[parameter.name] = null
      continue
    }
    const problem = valueProblem(parameter, given)
    if (problem === undefined) values[parameter.name] = given as Json
    else problems.push(`${parameter.name}: ${problem}`)
  }
  return problems.length === 0
    ? Either.right(values)
    : Either.left(`${problems.join("; ")}. The input schema is in tools/list.`)
}

/** The arguments as the activity log keeps them: a secret parameter's value replaced. */
export const auditedArguments = (
  definition: CuratedToolDefinition,
  values: Readonly<Record<string, Json>>
): JsonObject =>
  Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      definition.parameters?.find((parameter) => parameter.name === name)?.secret === true
        ? "[redacted]"
        : value
    ])
  )
