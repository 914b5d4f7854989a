import { Either } from "effect"
import { type CuratedParameter, type CuratedToolDefinition, ParameterType } from "../../../domain/CuratedTool.ts"
import { scanPlaceholders } from "../../../domain/CuratedSql.ts"
import type { SqlDialect } from "../../../domain/SqlLexer.ts"
import { toolNameProblem } from "../../../domain/ToolNames.ts"

/** One parameter as the form holds it: every field as typed (text), turned into the definition's types on save. */
export interface ParameterDraft {
  readonly type: ParameterType
  readonly required: boolean
  readonly default: string
  readonly min: string
  readonly max: string
  readonly pattern: string
  /** enum: the values, separated by commas. */
  readonly values: string
  readonly secret: boolean
}

export interface ToolDraft {
  readonly name: string
  readonly description: string
  readonly approvedInAdvance: boolean
  readonly parameters: Readonly<Record<string, ParameterDraft>>
}

const EMPTY_PARAMETER: ParameterDraft = { type: "text", required: true, default: "", min: "", max: "", pattern: "", values: "", secret: false }

export const emptyDraft = (name = ""): ToolDraft => ({ name, description: "", approvedInAdvance: false, parameters: {} })

/** A tool's name from a saved query's name: letters, digits and _ (a suggestion; the user may change it). */
export const suggestedName = (queryName: string): string =>
  queryName.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 128)

export const draftOf = (tool: CuratedToolDefinition): ToolDraft => ({
  name: tool.name,
  description: tool.description,
  approvedInAdvance: tool.approvedInAdvance === true,
  parameters: Object.fromEntries((tool.parameters ?? []).map((p) => [p.name, {
    type: p.type,
    required: p.required !== false,
    default: p.default === undefined ? "" : String(p.default),
    min: p.min === undefined ? "" : String(p.min),
    max: p.max === undefined ? "" : String(p.max),
    pattern: p.pattern ?? "",
    values: (p.values ?? []).join(", "),
    secret: p.secret === true
  }]))
})

/** The `:name` parameters of a statement, each once, in order of first use; or why they cannot be read. */
export const parameterNames = (sql: string, dialect: SqlDialect): Either.Either<ReadonlyArray<string>, string> =>
  Either.map(scanPlaceholders(sql, dialect), (found) => [...new Set(found.map((placeholder) => placeholder.name))])

const numberOf = (text: string, what: string): Either.Either<number | undefined, string> =>
  text.trim() === "" ? Either.right(undefined) : Number.isFinite(Number(text)) ? Either.right(Number(text)) : Either.left(`${what} must be a number`)

const parameterOf = (name: string, draft: ParameterDraft, base: CuratedParameter | undefined): Either.Either<CuratedParameter, string> => {
  const min = numberOf(draft.min, `${name}: the minimum`)
  const max = numberOf(draft.max, `${name}: the maximum`)
  if (Either.isLeft(min)) return Either.left(min.left)
  if (Either.isLeft(max)) return Either.left(max.left)
  const bounded = draft.type === "integer" || draft.type === "number" || draft.type === "text"
  const fallback = draft.default === ""
    ? undefined
    : draft.type === "integer" || draft.type === "number"
    ? (Number.isNaN(Number(draft.default)) ? draft.default : Number(draft.default))
    : draft.type === "boolean"
    ? (draft.default === "true" ? true : draft.default === "false" ? false : draft.default)
    : draft.default
  const values = draft.values.split(",").map((value) => value.trim()).filter((value) => value !== "")
  return Either.right({
    name,
    type: draft.type,
    ...(base?.description === undefined ? {} : { description: base.description }),
    ...(fallback === undefined && !draft.required ? { required: false } : {}),
    ...(fallback === undefined ? {} : { default: fallback }),
    ...(bounded && min.right !== undefined ? { min: min.right } : {}),
    ...(bounded && max.right !== undefined ? { max: max.right } : {}),
    ...(draft.type === "text" && draft.pattern !== "" ? { pattern: draft.pattern } : {}),
    ...(draft.type === "enum" ? { values } : {}),
    ...(draft.secret ? { secret: true } : {})
  })
}

/**
 * The definition the form describes: `base` gives the connection and the statement or search (and a disabled state
 * or parameter descriptions to keep). The server checks it again as a whole before writing it.
 */
export const definitionOf = (
  draft: ToolDraft,
  names: ReadonlyArray<string>,
  base: Pick<CuratedToolDefinition, "connection"> & Partial<CuratedToolDefinition>
): Either.Either<CuratedToolDefinition, string> => {
  const parameters: Array<CuratedParameter> = []
  for (const name of names) {
    const built = parameterOf(name, draft.parameters[name] ?? EMPTY_PARAMETER, base.parameters?.find((p) => p.name === name))
    if (Either.isLeft(built)) return Either.left(built.left)
    parameters.push(built.right)
  }
  if (draft.description.trim() === "") return Either.left("Say what the tool does: the description is what the AI client reads.")
  return Either.right({
    name: draft.name.trim(),
    description: draft.description.trim(),
    connection: base.connection,
    ...(base.sql === undefined ? {} : { sql: base.sql }),
    ...(base.search === undefined ? {} : { search: base.search }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(draft.approvedInAdvance ? { approvedInAdvance: true } : {}),
    ...(base.disabled === true ? { disabled: true } : {})
  })
}

const ParameterFields = ({ name, value, onChange }: { readonly name: string; readonly value: ParameterDraft; readonly onChange: (next: ParameterDraft) => void }) => {
  const set = (patch: Partial<ParameterDraft>) => onChange({ ...value, ...patch })
  const bounded = value.type === "integer" || value.type === "number" || value.type === "text"
  const unit = value.type === "text" ? " length" : ""
  return (
    <fieldset className="card" aria-label={`Parameter ${name}`}>
      <legend className="mono">:{name}</legend>
      <div className="row">
        <label>Type <select aria-label={`Type of ${name}`} value={value.type} onChange={(e) => set({ type: e.target.value as ParameterType })}>
          {ParameterType.literals.map((type) => <option key={type} value={type}>{type}</option>)}
        </select></label>
        <label><input type="checkbox" aria-label={`${name} is required`} checked={value.required} onChange={(e) => set({ required: e.target.checked })} /> Required</label>
        <input aria-label={`Default of ${name}`} placeholder="Default (optional)" value={value.default} onChange={(e) => set({ default: e.target.value })} />
        {bounded && <input aria-label={`Minimum${unit} of ${name}`} placeholder={`Min${unit}`} size={8} value={value.min} onChange={(e) => set({ min: e.target.value })} />}
        {bounded && <input aria-label={`Maximum${unit} of ${name}`} placeholder={`Max${unit}`} size={8} value={value.max} onChange={(e) => set({ max: e.target.value })} />}
        {value.type === "text" && <input aria-label={`Pattern of ${name}`} placeholder="Pattern (regular expression)" value={value.pattern} onChange={(e) => set({ pattern: e.target.value })} />}
        {value.type === "enum" && <input aria-label={`Values of ${name}`} placeholder="Values, separated by commas" value={value.values} onChange={(e) => set({ values: e.target.value })} />}
        <label><input type="checkbox" aria-label={`${name} is secret`} checked={value.secret} onChange={(e) => set({ secret: e.target.checked })} /> Secret (kept out of the activity log)</label>
      </div>
    </fieldset>
  )
}

/**
 * The fields of a curated tool (D-90), shared by the console's Save dialog and the MCP panel's Edit: the name (checked
 * as typed against MCP's name rule, the built-in tools and the other curated tools), the description the model reads,
 * a type and its limits for each `:name` parameter found, and "approved in advance" with its warning.
 */
export const CuratedToolFields = ({ draft, onChange, names, namesProblem, taken }: {
  readonly draft: ToolDraft
  readonly onChange: (next: ToolDraft) => void
  /** The parameters of the statement (found in its text), each given a type here. */
  readonly names: ReadonlyArray<string>
  /** Why the statement's parameters cannot be read (shown instead of them). */
  readonly namesProblem?: string | undefined
  /** Names the tool may not take (the other curated tools). */
  readonly taken: ReadonlyArray<string>
}) => {
  const nameProblem = draft.name === "" ? undefined : toolNameProblem(draft.name.trim(), taken)
  return (
    <div className="curated-fields">
      <label className="row">Tool name <input aria-label="Tool name" className="mono" value={draft.name} onChange={(e) => onChange({ ...draft, name: e.target.value })} /></label>
      {nameProblem !== undefined && <div className="error" role="alert" aria-label="Tool name problem">{nameProblem}</div>}
      <label>Description for the AI client
        <textarea aria-label="Tool description" rows={2} style={{ width: "100%" }} value={draft.description} onChange={(e) => onChange({ ...draft, description: e.target.value })} />
      </label>
      {namesProblem !== undefined
        ? <div className="error" role="alert">{namesProblem}</div>
        : names.length === 0
        ? <p className="muted">The statement has no :name parameters.</p>
        : names.map((name) => (
          <ParameterFields key={name} name={name} value={draft.parameters[name] ?? EMPTY_PARAMETER}
            onChange={(next) => onChange({ ...draft, parameters: { ...draft.parameters, [name]: next } })} />
        ))}
      <label className="row"><input type="checkbox" aria-label="Approved in advance" checked={draft.approvedInAdvance} onChange={(e) => onChange({ ...draft, approvedInAdvance: e.target.checked })} /> Approved in advance</label>
      {draft.approvedInAdvance && (
        <div role="note" style={{ background: "#ffe2b8", color: "#5a3a00", padding: "6px 10px", borderRadius: 4 }}>
          If the statement changes data, AI clients run it without asking you and without a dry run. Each run is recorded in the activity log.
        </div>
      )}
    </div>
  )
}

/** Whether the form may be saved: a name that passes, and parameters that could be read. */
export const draftReady = (draft: ToolDraft, taken: ReadonlyArray<string>, namesProblem: string | undefined): boolean =>
  toolNameProblem(draft.name.trim(), taken) === undefined && namesProblem === undefined
