import { dirtyValuesOf, validateDocument } from "./DocumentValidation.ts"
import { failure } from "./Http.ts"
import { isObject, type Json, type JsonObject, JsonParseError, parseJson } from "./Json.ts"
import type { Collection, Doc } from "./State.ts"

export type WriteAction = "create" | "upsert" | "update" | "emplace"

export const writeActionOf = (value: string | undefined): WriteAction => {
  const action = value ?? "create"
  if (action === "create" || action === "upsert" || action === "update" || action === "emplace") return action
  return failure(400, "Parameter `action` must be a create|update|upsert.")
}

/** Parses one document text; the §1.2.1 `Bad JSON: …` messages. */
export const parseDocument = (text: string): JsonObject => {
  let parsed: Json
  try {
    parsed = parseJson(text)
  } catch (error) {
    return failure(400, `Bad JSON: ${error instanceof JsonParseError ? error.message : String(error)}`)
  }
  if (!isObject(parsed)) return failure(400, "Bad JSON: not a properly formed document.")
  return parsed
}

const storeMerged = (
  collection: Collection,
  existingDoc: Doc,
  input: JsonObject,
  dirtyParam: string | undefined
): Doc => {
  const validated = validateDocument(collection, input, true, dirtyValuesOf(dirtyParam, collection))
  const merged: Doc = { ...existingDoc, ...validated.doc }
  for (const name of validated.removed) delete merged[name]
  collection.fields.push(...validated.newFields)
  return merged
}

/**
 * One document write (POST single, import line, seeding) with the §1.2.1 checks in the server's order.
 * Returns the stored document (the full merged one for updates).
 */
export const writeDocument = (
  collection: Collection,
  input: JsonObject,
  action: WriteAction,
  dirtyParam?: string
): Doc => {
  const id = input["id"]
  if (id !== undefined && typeof id !== "string") failure(400, "Document's `id` field should be a string.")
  if (id === "") failure(400, "The `id` should not be empty.")
  if (action === "update" && id === undefined) failure(400, "For update, the `id` key must be provided.")
  const existing = typeof id === "string" ? collection.docs.get(id) : undefined
  if (action === "create" && existing !== undefined) failure(409, `A document with id ${String(id)} already exists.`)
  if (action === "update" && existing === undefined) failure(404, `Could not find a document with id: ${String(id)}`)
  if (existing !== undefined && (action === "update" || action === "emplace")) {
    existing.doc = storeMerged(collection, existing.doc, input, dirtyParam)
    return existing.doc
  }
  const validated = validateDocument(collection, input, false, dirtyValuesOf(dirtyParam, collection))
  collection.fields.push(...validated.newFields)
  if (existing !== undefined) {
    existing.doc = validated.doc
    return existing.doc
  }
  const seq = collection.nextSeq++
  const doc: Doc = typeof id === "string" ? validated.doc : { ...validated.doc, id: String(seq) }
  collection.docs.set(String(doc["id"]), { seq, doc })
  return doc
}

/** `PATCH …/documents/:id` (§1.2): id mismatch refused, then 404, then the merge. */
export const patchDocument = (collection: Collection, id: string, input: JsonObject, dirtyParam?: string): Doc => {
  if ("id" in input && input["id"] !== id) {
    failure(400, "The `id` of the resource does not match the `id` in the JSON body.")
  }
  const existing = collection.docs.get(id)
  if (existing === undefined) return failure(404, `Could not find a document with id: ${id}`)
  existing.doc = storeMerged(collection, existing.doc, input, dirtyParam)
  return existing.doc
}
