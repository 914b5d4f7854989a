import { isJsonObject, type JsonObject } from "../domain/Json.ts"
import { META_PROTOCOL_VERSION, MODERN_VERSION } from "../domain/ProtocolVersions.ts"
import { wrapHeaderValue } from "./HeaderValues.ts"

/** Wire contract §4.2: the header copies of the envelope, with `Mcp-Name` for the three named methods. */
export const headersFor = (message: JsonObject, token: string | undefined): Record<string, string> => {
  const method = typeof message["method"] === "string" ? message["method"] : ""
  const params = isJsonObject(message["params"]) ? message["params"] : {}
  const meta = isJsonObject(params["_meta"]) ? params["_meta"] : {}
  const version = meta[META_PROTOCOL_VERSION]
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": wrapHeaderValue(typeof version === "string" ? version : MODERN_VERSION),
    "mcp-method": wrapHeaderValue(method)
  }
  const name = method === "resources/read"
    ? params["uri"]
    : method === "tools/call" || method === "prompts/get"
    ? params["name"]
    : undefined
  if (typeof name === "string") headers["mcp-name"] = wrapHeaderValue(name)
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`
  return headers
}
