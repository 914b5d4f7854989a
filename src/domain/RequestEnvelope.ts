import { Either } from "effect"
import type { Json, JsonObject } from "./Json.ts"
import { isJsonObject } from "./Json.ts"
import type { RequestId } from "./JsonRpc.ts"
import { ProtocolError } from "./ProtocolErrors.ts"
import {
  isModernVersion,
  MCP_META_PREFIX,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION
} from "./ProtocolVersions.ts"

export type Era = "modern" | "legacy"

export interface ClientInfo {
  readonly name: string
  readonly version: string
  readonly title?: string
}

export interface TraceContext {
  readonly traceparent?: string
  readonly tracestate?: string
  readonly baggage?: string
}

/** What the pipeline knows about one modern request after §2.2 validation. */
export interface ModernEnvelope {
  readonly era: "modern"
  readonly protocolVersion: string
  readonly clientCapabilities: JsonObject
  readonly clientInfo?: ClientInfo
  readonly progressToken?: string | number
  readonly traceContext: TraceContext
}

/**
 * Era of a request (D-30): modern when the `MCP-Protocol-Version` header names
 * a modern revision or `params._meta` holds any `io.modelcontextprotocol/` key; else legacy (§9 point 2).
 */
export const detectEra = (protocolVersionHeader: string | undefined, params: JsonObject | undefined): Era => {
  if (protocolVersionHeader !== undefined && isModernVersion(protocolVersionHeader)) return "modern"
  const meta = params?.["_meta"]
  if (isJsonObject(meta) && Object.keys(meta).some((key) => key.startsWith(MCP_META_PREFIX))) return "modern"
  return "legacy"
}

const readClientInfo = (value: Json | undefined): ClientInfo | undefined => {
  if (!isJsonObject(value) || typeof value["name"] !== "string") return undefined
  const version = typeof value["version"] === "string" ? value["version"] : ""
  const title = value["title"]
  return typeof title === "string" ? { name: value["name"], version, title } : { name: value["name"], version }
}

const readTraceContext = (meta: JsonObject): TraceContext => {
  const out: { traceparent?: string; tracestate?: string; baggage?: string } = {}
  for (const key of ["traceparent", "tracestate", "baggage"] as const) {
    const value = meta[key]
    if (typeof value === "string") out[key] = value
  }
  return out
}

/**
 * Wire contract §2.2 for a modern request: missing or empty version → -32602; a version that is
 * not served → -32022 with `data.supported`; `clientCapabilities` missing or not an object → -32602.
 */
export const decodeModernEnvelope = (
  params: JsonObject | undefined,
  supportedVersions: ReadonlyArray<string>
): Either.Either<ModernEnvelope, ProtocolError> => {
  const meta = params?.["_meta"]
  if (!isJsonObject(meta)) {
    return Either.left(ProtocolError.invalidParams("params._meta must be an object holding the MCP envelope", {
      envelope: { key: "_meta", problem: meta === undefined ? "missing" : "not an object" }
    }))
  }
  const version = meta[META_PROTOCOL_VERSION]
  if (version === undefined || version === null || version === "") {
    return Either.left(ProtocolError.invalidParams(`_meta["${META_PROTOCOL_VERSION}"] is required`, {
      envelope: { key: META_PROTOCOL_VERSION, problem: version === "" ? "empty" : "missing" }
    }))
  }
  if (typeof version !== "string") {
    return Either.left(ProtocolError.invalidParams(`_meta["${META_PROTOCOL_VERSION}"] must be a string`, {
      envelope: { key: META_PROTOCOL_VERSION, problem: "not a string" }
    }))
  }
  if (!isModernVersion(version)) {
    return Either.left(ProtocolError.of(-32022, `Unsupported protocol version ${version}`, {
      supported: [...supportedVersions],
      requested: version
    }))
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES]
  if (!isJsonObject(capabilities)) {
    return Either.left(ProtocolError.invalidParams(
      `_meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object ({} declares nothing)`,
      { envelope: { key: META_CLIENT_CAPABILITIES, problem: capabilities === undefined ? "missing" : "not an object" } }
    ))
  }
  const progressToken = meta["progressToken"]
  if (progressToken !== undefined && typeof progressToken !== "string" && !Number.isInteger(progressToken)) {
    return Either.left(ProtocolError.invalidParams("_meta.progressToken must be a string or an integer"))
  }
  const clientInfo = readClientInfo(meta[META_CLIENT_INFO])
  return Either.right({
    era: "modern",
    protocolVersion: version,
    clientCapabilities: capabilities,
    ...(clientInfo === undefined ? {} : { clientInfo }),
    ...(typeof progressToken === "string" || typeof progressToken === "number" ? { progressToken } : {}),
    traceContext: readTraceContext(meta)
  })
}

export const isProgressToken = (value: unknown): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isInteger(value))
