import { validateDocument } from "./DocumentValidation.ts"
import { isDynamicName, parseField, parseSchemaFields, renderField } from "./Fields.ts"
import { failure, handlerError, json, type EngineResponse } from "./Http.ts"
import { authenticatedKey, collectionAllowed } from "./Keys.ts"
import { isObject, type JsonObject, parseJson, plain } from "./Json.ts"
import { commaList } from "./Prune.ts"
import { route, type RequestContext, type Route } from "./Router.ts"
import { Collection, type EngineState } from "./State.ts"

export const parseObjectBody = (body: string, message = "Bad JSON."): JsonObject => {
  try {
    const parsed = parseJson(body)
    if (isObject(parsed)) return parsed
  } catch {
    // falls through
  }
  return failure(400, message)
}

const stringArray = (value: unknown): Array<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

/** The collection summary of §1.1 (nlohmann sorts the keys on output). */
export const collectionSummary = (state: EngineState, collection: Collection): Record<string, unknown> => ({
  name: collection.name,
  num_documents: collection.docs.size,
  created_at: collection.createdAt,
  enable_nested_fields: collection.nested,
  token_separators: collection.tokenSeparators,
  symbols_to_index: collection.symbolsToIndex,
  default_sorting_field: collection.defaultSortingField,
  fields: collection.fields.map((field) => renderField(field, state.version)),
  ...(state.version >= 27 && collection.metadata !== undefined && Object.keys(collection.metadata).length > 0
    ? { metadata: collection.metadata }
    : {})
})

/** `POST /collections` validation order (§1.1, §1.6): shape, fields, then the 409 on an existing name. */
export const createCollection = (state: EngineState, body: JsonObject): Collection => {
  if (!("name" in body)) failure(400, "Parameter `name` is required.")
  const name = body["name"]
  if (typeof name !== "string" || name === "") return failure(400, "Parameter `name` must be a non-empty string.")
  if (!("fields" in body)) failure(400, "Parameter `fields` is required.")
  const fields = body["fields"]
  if (!Array.isArray(fields) || !fields.every(isObject)) {
    failure(
      400,
      "The `fields` value should be an array of objects containing `name`, `type` and optionally, `facet` properties."
    )
  }
  const nested = body["enable_nested_fields"] === true
  const schema = parseSchemaFields(body, nested)
  if (state.collections.has(name)) failure(409, `A collection with name \`${name}\` already exists.`)
  const metadata = isObject(body["metadata"]) ? (plain(body["metadata"]) as Record<string, unknown>) : undefined
  const collection = new Collection(
    name,
    Math.floor(Date.now() / 1000),
    state.collectionsCreated++,
    nested,
    schema.fields,
    schema.defaultSortingField,
    stringArray(body["token_separators"]),
    stringArray(body["symbols_to_index"]),
    metadata
  )
  state.collections.set(name, collection)
  return collection
}

const unsignedParam = (value: string | undefined, message: string): number | undefined => {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) failure(400, message)
  return Number(value)
}

const list = (context: RequestContext): EngineResponse => {
  const { state, query } = context
  const offset = unsignedParam(query["offset"], "Offset param should be unsigned integer.")
  const limit = unsignedParam(query["limit"], "Limit param should be unsigned integer.")
  let collections = [...state.collections.values()].sort((a, b) => b.creationOrder - a.creationOrder)
  const key = authenticatedKey(state, context.apiKey)
  // §8: key-scoped listing from v27; v26 lists every collection.
  if (state.version >= 27 && key !== false && key !== undefined) {
    collections = collections.filter((c) => collectionAllowed(key.collections, c.name))
  }
  if (offset !== undefined) {
    if (offset >= collections.length) failure(400, "Invalid offset param.")
    collections = collections.slice(offset)
  }
  if (limit !== undefined) collections = collections.slice(0, limit)
  const excluded = state.version >= 27 ? commaList(query["exclude_fields"]) : []
  return json(
    200,
    collections.map((c) => {
      const summary = collectionSummary(state, c)
      for (const name of excluded) delete summary[name]
      return summary
    })
  )
}

const create = (context: RequestContext): EngineResponse =>
  json(201, collectionSummary(context.state, createCollection(context.state, parseObjectBody(context.body))))

const get = (context: RequestContext): EngineResponse => {
  const collection = context.state.resolve(context.params["collection"]!)
  if (collection === undefined) return handlerError(404, context.state.collectionNotFound)
  return json(200, collectionSummary(context.state, collection))
}

/** Alter (§1.1): add fields, drop `{"name":x,"drop":true}`, `metadata`; existing documents must fit new fields. */
const update = (context: RequestContext): EngineResponse => {
  const { state } = context
  const collection = state.resolve(context.params["collection"]!)
  if (collection === undefined) return handlerError(404, state.collectionNotFound)
  const body = parseObjectBody(context.body)
  if (state.version >= 27) {
    if (Object.keys(body).length === 0) failure(400, "Alter payload is empty.")
    if (Object.keys(body).some((k) => k !== "fields" && k !== "metadata")) {
      failure(400, "Only `fields` and `metadata` can be updated at the moment.")
    }
  }
  const definitions = body["fields"] ?? []
  if (!Array.isArray(definitions)) return failure(400, "Bad JSON.")
  let fields = [...collection.fields]
  for (const definition of definitions) {
    if (isObject(definition) && definition["drop"] === true) {
      const name = String(definition["name"])
      if (!fields.some((f) => f.name === name)) failure(400, `Field \`${name}\` is not part of collection schema.`)
      fields = fields.filter((f) => f.name !== name && !f.name.startsWith(`${name}.`))
      continue
    }
    const field = parseField(definition, collection.nested)
    if (fields.some((f) => f.name === field.name)) {
      failure(
        400,
        `Field \`${field.name}\` is already part of the schema: To change this field, drop it first before adding it back to the schema.`
      )
    }
    fields.push(field)
  }
  const candidate = Object.assign(Object.create(Object.getPrototypeOf(collection)), collection, {
    fields
  }) as Collection
  for (const stored of collection.docs.values()) {
    const added = fields.filter((f) => !collection.fields.includes(f) && !isDynamicName(f.name))
    if (added.length > 0) validateDocument(candidate, stored.doc as JsonObject, false, "reject")
  }
  collection.fields = fields
  if (isObject(body["metadata"])) collection.metadata = plain(body["metadata"]) as Record<string, unknown>
  return json(200, body)
}

const remove = (context: RequestContext): EngineResponse => {
  const { state } = context
  const collection = state.resolve(context.params["collection"]!)
  if (collection === undefined) {
    return handlerError(404, `No collection with name \`${context.params["collection"]!}\` found.`)
  }
  const summary = collectionSummary(state, collection)
  state.collections.delete(collection.name)
  return json(200, summary)
}

export const collectionRoutes: ReadonlyArray<Route> = [
  route("GET", "/collections", list),
  route("POST", "/collections", create),
  route("GET", "/collections/:collection", get),
  route("PATCH", "/collections/:collection", update),
  route("DELETE", "/collections/:collection", remove)
]
