import { randomBytes } from "node:crypto"
import { failure, handlerError, json, type EngineResponse } from "./Http.ts"
import { compareBytes, isInteger, isObject, type JsonObject, parseJson } from "./Json.ts"
import { route, type RequestContext, type Route } from "./Router.ts"
import type { ApiKey, EngineState } from "./State.ts"

const DEFAULT_EXPIRES_AT = 64723363199

/** §5 collection match: `*`, the exact name, or an ECMAScript regex that matches the whole name. */
export const collectionAllowed = (entries: ReadonlyArray<string>, name: string): boolean =>
  entries.some((entry) => {
    if (entry === "*" || entry === name) return true
    try {
      return new RegExp(`^(?:${entry})$`).test(name)
    } catch {
      return false
    }
  })

/** §5 action match: `*`, the exact action, or `<resource>:*` for the requested action's resource. */
export const actionAllowed = (entries: ReadonlyArray<string>, action: string): boolean => {
  const resource = action.slice(0, action.lastIndexOf(":"))
  return entries.some((entry) => entry === "*" || entry === action || entry === `${resource}:*`)
}

export const findKey = (state: EngineState, value: string): ApiKey | undefined =>
  [...state.keys.values()].find((key) => key.value === value)

/** The key in use, or undefined for the bootstrap key; `false` when the key is missing, unknown or expired. */
export const authenticatedKey = (state: EngineState, value: string): ApiKey | undefined | false => {
  if (value === "") return false
  if (value === state.bootstrapKey) return undefined
  const key = findKey(state, value)
  if (key === undefined || Date.now() / 1000 > key.expires_at) return false
  return key
}

export const authorize = (
  state: EngineState,
  value: string,
  action: string,
  collections: ReadonlyArray<string>
): boolean => {
  const key = authenticatedKey(state, value)
  if (key === false) return false
  if (key === undefined) return true
  return actionAllowed(key.actions, action) && collections.every((name) => collectionAllowed(key.collections, name))
}

const summary = (key: ApiKey) => ({
  actions: key.actions,
  autodelete: key.autodelete,
  collections: key.collections,
  description: key.description,
  expires_at: key.expires_at,
  id: key.id,
  value_prefix: key.value.slice(0, 4)
})

const randomValue = (): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  return [...randomBytes(32)].map((byte) => alphabet[byte % alphabet.length]).join("")
}

const isStringArray = (value: unknown): value is Array<string> =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string")

/** `api_key_t::validate` checks in their source order (§1.4). */
const validateKeyBody = (body: JsonObject): void => {
  for (const name of ["description", "actions", "collections"]) {
    if (!(name in body)) failure(400, `Could not find a \`${name}\` key.`)
  }
  if ("value" in body && typeof body["value"] !== "string") failure(400, "Key value must be a string.")
  if (typeof body["description"] !== "string") failure(400, "Key description must be a string.")
  if (!isStringArray(body["actions"])) failure(400, "Wrong format for `actions`. It should be an array of string.")
  if (!isStringArray(body["collections"])) {
    failure(400, "Wrong format for `collections`. It should be an array of string.")
  }
  if ("expires_at" in body && !(isInteger(body["expires_at"]) && body["expires_at"] >= 0)) {
    failure(400, "Wrong format for `expires_at`. It should be an unsigned integer.")
  }
}

export const createKey = (state: EngineState, body: JsonObject): ApiKey => {
  validateKeyBody(body)
  const value = typeof body["value"] === "string" ? body["value"] : randomValue()
  if (value === state.bootstrapKey || findKey(state, value) !== undefined) failure(409, "API key generation conflict.")
  const key: ApiKey = {
    id: state.nextKeyId++,
    value,
    description: body["description"] as string,
    actions: body["actions"] as Array<string>,
    collections: body["collections"] as Array<string>,
    expires_at: isInteger(body["expires_at"]) ? body["expires_at"] : DEFAULT_EXPIRES_AT,
    autodelete: body["autodelete"] === true
  }
  state.keys.set(key.id, key)
  return key
}

const parseBody = (body: string): JsonObject => {
  try {
    const parsed = parseJson(body)
    if (isObject(parsed)) return parsed
  } catch {
    // falls through to the Bad JSON answer
  }
  return failure(400, "Bad JSON.")
}

const keyById = (context: RequestContext): ApiKey | undefined => {
  const id = context.params["id"]!
  return /^\d+$/.test(id) ? context.state.keys.get(Number(id)) : undefined
}

const create = (context: RequestContext): EngineResponse => {
  const key = createKey(context.state, parseBody(context.body))
  const { value_prefix: _prefix, ...rest } = summary(key)
  return json(201, { ...rest, value: key.value })
}

/** Store order `$KP_<id>`: ids compared as strings (§1.4). */
const list = (context: RequestContext): EngineResponse => {
  const keys = [...context.state.keys.values()].sort((a, b) => compareBytes(String(a.id), String(b.id)))
  return json(200, { keys: keys.map(summary) })
}

const get = (context: RequestContext): EngineResponse => {
  const key = keyById(context)
  return key === undefined ? handlerError(404, "Not found.") : json(200, summary(key))
}

const remove = (context: RequestContext): EngineResponse => {
  const key = keyById(context)
  if (key === undefined) return handlerError(404, "Not found.")
  context.state.keys.delete(key.id)
  return json(200, { id: key.id })
}

export const keyRoutes: ReadonlyArray<Route> = [
  route("POST", "/keys", create),
  route("GET", "/keys", list),
  route("GET", "/keys/:id", get),
  route("DELETE", "/keys/:id", remove)
]
