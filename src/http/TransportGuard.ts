import { TransportRejection } from "../domain/ProtocolErrors.ts"

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Wire contract §4.1 "Host" and product-decisions §4 "Host": localhost, 127.0.0.1 or [::1], with
 * or without the bound port, case-insensitive; anything else (other ports, trailing dots, other
 * names) is `forbidden_host`.
 */
export const checkHost = (host: string | undefined, boundPort: number): TransportRejection | undefined => {
  const reject = () => new TransportRejection({ code: "forbidden_host", message: `Host ${JSON.stringify(host ?? "")} is not this loopback server` })
  if (host === undefined || host === "") return reject()
  const value = host.toLowerCase()
  if (value === "::1") return undefined
  let name = value
  let port: string | undefined
  if (value.startsWith("[")) {
    const end = value.indexOf("]")
    if (end < 0) return reject()
    name = value.slice(0, end + 1)
    const rest = value.slice(end + 1)
    if (rest !== "") {
      if (!rest.startsWith(":")) return reject()
      port = rest.slice(1)
    }
  } else {
    const colon = value.indexOf(":")
    if (colon >= 0) {
      name = value.slice(0, colon)
      port = value.slice(colon + 1)
    }
  }
  if (!LOOPBACK_HOSTS.has(name)) return reject()
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) !== boundPort)) return reject()
  return undefined
}

/** Wire contract §4.1 "Origin": optional; when present it must be one of the allowed origins. */
export const checkOrigin = (origin: string | undefined, allowedOrigins: ReadonlyArray<string>): TransportRejection | undefined => {
  if (origin === undefined) return undefined
  if (allowedOrigins.includes(origin)) return undefined
  return new TransportRejection({ code: "forbidden_origin", message: `Origin ${JSON.stringify(origin)} is not allowed to call this server` })
}

export const transportRejectionBody = (rejection: TransportRejection) => ({
  error: { code: rejection.code, message: rejection.message }
})
