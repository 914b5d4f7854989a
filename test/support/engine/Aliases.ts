import { parseObjectBody } from "./Collections.ts"
import { failure, handlerError, json, type EngineResponse } from "./Http.ts"
import { plain } from "./Json.ts"
import { route, type RequestContext, type Route } from "./Router.ts"

/** §1.5: the target collection is not validated; the answer echoes the request plus `name`. */
const upsert = (context: RequestContext): EngineResponse => {
  const name = context.params["name"]!
  const body = parseObjectBody(context.body)
  const target = body["collection_name"]
  if (typeof target !== "string") return failure(400, "Parameter `collection_name` is required.")
  if (context.state.collections.has(name)) failure(500, `Name \`${name}\` conflicts with an existing collection name.`)
  context.state.aliases.set(name, target)
  return json(200, { ...(plain(body) as Record<string, unknown>), name })
}

const list = (context: RequestContext): EngineResponse =>
  json(200, {
    aliases: [...context.state.aliases].map(([name, collection_name]) => ({ collection_name, name }))
  })

const get = (context: RequestContext): EngineResponse => {
  const name = context.params["name"]!
  const target = context.state.aliases.get(name)
  if (target === undefined) return handlerError(404, context.state.collectionNotFound)
  return json(200, { collection_name: target, name })
}

const remove = (context: RequestContext): EngineResponse => {
  const name = context.params["name"]!
  const target = context.state.aliases.get(name)
  if (target === undefined) return handlerError(404, context.state.collectionNotFound)
  context.state.aliases.delete(name)
  return json(200, { collection_name: target, name })
}

export const aliasRoutes: ReadonlyArray<Route> = [
  route("PUT", "/aliases/:name", upsert),
  route("GET", "/aliases", list),
  route("GET", "/aliases/:name", get),
  route("DELETE", "/aliases/:name", remove)
]
