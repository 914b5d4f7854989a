import { parseDocument, patchDocument, writeActionOf, writeDocument } from "./DocumentWrites.ts"
import { compileFilter } from "./Filter.ts"
import { EngineFailure, failure, handlerError, json, text, type EngineResponse } from "./Http.ts"
import { dump } from "./Json.ts"
import { commaList, pruneDocument } from "./Prune.ts"
import { route, type RequestContext, type Route } from "./Router.ts"
import type { Collection } from "./State.ts"

const withCollection =
  (handler: (context: RequestContext, collection: Collection) => EngineResponse) =>
  (context: RequestContext): EngineResponse => {
    const collection = context.state.resolve(context.params["collection"]!)
    if (collection === undefined) return handlerError(404, context.state.collectionNotFound)
    return handler(context, collection)
  }

const positiveInteger = (value: string | undefined, name: string): void => {
  if (value !== undefined && !(/^\d+$/.test(value) && Number(value) > 0)) {
    failure(400, `Parameter \`${name}\` must be a positive integer.`)
  }
}

const trueOrFalse = (value: string | undefined, name: string): boolean => {
  if (value === undefined) return false
  if (value !== "true" && value !== "false") failure(400, `Parameter \`${name}\` must be a true|false.`)
  return value === "true"
}

/** Fields the version accepts on GET (include/exclude from v27, §8). */
const prunedFor = (context: RequestContext, doc: Record<string, unknown>) =>
  context.state.version >= 27
    ? pruneDocument(doc, commaList(context.query["include_fields"]), commaList(context.query["exclude_fields"]))
    : doc

const create = withCollection((context, collection) => {
  const action = writeActionOf(context.query["action"])
  const doc = writeDocument(collection, parseDocument(context.body), action, context.query["dirty_values"])
  return json(201, doc)
})

const get = withCollection((context, collection) => {
  const id = context.params["id"]!
  const stored = collection.docs.get(id)
  if (stored === undefined) return handlerError(404, `Could not find a document with id: ${id}`)
  return json(200, prunedFor(context, stored.doc))
})

const patch = withCollection((context, collection) => {
  const doc = patchDocument(
    collection,
    context.params["id"]!,
    parseDocument(context.body),
    context.query["dirty_values"]
  )
  return json(200, doc)
})

const remove = withCollection((context, collection) => {
  const id = context.params["id"]!
  const stored = collection.docs.get(id)
  if (stored === undefined) {
    if (context.query["ignore_not_found"] === "true") return json(200, { id })
    return handlerError(404, `Could not find a document with id: ${id}`)
  }
  collection.docs.delete(id)
  return json(200, stored.doc)
})

const removeByFilter = withCollection((context, collection) => {
  const { query, state } = context
  const truncate = state.version >= 28 && query["truncate"] === "true"
  if (!truncate && query["filter_by"] === undefined) failure(400, "Parameter `filter_by` must be provided.")
  positiveInteger(query["batch_size"], "batch_size")
  const predicate = truncate
    ? () => true
    : compileFilter(state, collection, query["filter_by"], query["validate_field_names"] !== "false")
  const deleted = collection.inSeqOrder().filter((stored) => predicate(stored.doc))
  for (const stored of deleted) collection.docs.delete(String(stored.doc["id"]))
  return json(200, {
    num_deleted: deleted.length,
    ...(query["return_doc"] === "true" ? { documents: deleted.map((s) => s.doc) } : {}),
    ...(state.version >= 29 && query["return_id"] === "true" ? { ids: deleted.map((s) => s.doc["id"]) } : {})
  })
})

const updateByFilter = withCollection((context, collection) => {
  const { query, state } = context
  if (query["filter_by"] === undefined) failure(400, "Parameter `filter_by` must be provided.")
  const partial = parseDocument(context.body)
  const predicate = compileFilter(state, collection, query["filter_by"])
  let updated = 0
  for (const stored of collection.inSeqOrder().filter((s) => predicate(s.doc))) {
    const { id: _ignored, ...changes } = partial
    try {
      patchDocument(collection, String(stored.doc["id"]), changes, query["dirty_values"])
      updated++
    } catch (error) {
      if (!(error instanceof EngineFailure)) throw error
    }
  }
  return json(200, { num_updated: updated })
})

/** Import (§1.2): always 200, one result line per non-empty input line, no trailing newline. */
const importDocuments = withCollection((context, collection) => {
  const { query, state } = context
  positiveInteger(query["batch_size"], "batch_size")
  const action = writeActionOf(query["action"])
  const returnDoc = trueOrFalse(query["return_doc"], "return_doc")
  const returnId = trueOrFalse(query["return_id"], "return_id")
  const lines = context.body.split("\n").filter((line) => line.trim() !== "")
  const results = lines.map((line) => {
    try {
      const doc = writeDocument(collection, parseDocument(line), action, query["dirty_values"])
      return { success: true, ...(returnId ? { id: doc["id"] } : {}), ...(returnDoc ? { document: doc } : {}) }
    } catch (error) {
      if (!(error instanceof EngineFailure)) throw error
      // §8: v26/v27 always echo the line as `document`; v28+ only with return_doc=true.
      const echo = state.version < 28 || returnDoc
      return { code: error.code, error: error.message, success: false, ...(echo ? { document: line } : {}) }
    }
  })
  return text(200, results.map(dump).join("\n"))
})

const exportDocuments = withCollection((context, collection) => {
  const { query, state } = context
  const predicate = compileFilter(state, collection, query["filter_by"], query["validate_field_names"] !== "false")
  const include = commaList(query["include_fields"])
  const exclude = commaList(query["exclude_fields"])
  const lines = collection
    .inSeqOrder()
    .filter((stored) => predicate(stored.doc))
    .map((stored) => dump(pruneDocument(stored.doc, include, exclude)))
  return text(200, lines.join("\n"))
})

export const documentRoutes: ReadonlyArray<Route> = [
  route("GET", "/collections/:collection/documents/export", exportDocuments),
  route("POST", "/collections/:collection/documents/import", importDocuments, { category: "import" }),
  route("POST", "/collections/:collection/documents", create, { errorShape: "escaped", category: "write" }),
  route("PATCH", "/collections/:collection/documents", updateByFilter, { category: "write" }),
  route("DELETE", "/collections/:collection/documents", removeByFilter, { category: "delete" }),
  route("GET", "/collections/:collection/documents/:id", get),
  route("PATCH", "/collections/:collection/documents/:id", patch, { category: "write" }),
  route("DELETE", "/collections/:collection/documents/:id", remove, { category: "delete" })
]
