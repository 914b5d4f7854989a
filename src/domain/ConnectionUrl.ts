// Connection URLs both ways: `postgresql://`, `postgres://`, `mysql://`, `mariadb://` and `sqlite:` read into a
// connection's fields (the UI's URL import, `connection add … --url`), and a connection written back as a URL that
// never holds its password (the UI's "Copy as URL", `connection url`). Every part is percent-encoded, an IPv6 host
// is bracketed. Error texts name the part that is wrong, never the URL itself (it may hold a password).

export type UrlType = "postgresql" | "mysql" | "sqlite"

/** What a URL says about a connection; `password` is a secret the caller stores and never shows back. */
export interface UrlFields {
  readonly type: UrlType
  readonly path?: string
  readonly host?: string
  readonly port?: number
  readonly database?: string
  readonly user?: string
  readonly password?: string
  readonly sslMode?: string
  readonly sslCa?: string
  readonly sslCert?: string
  readonly sslKey?: string
}

export type ParsedUrl =
  | {
    readonly ok: true
    readonly fields: UrlFields /** Query parameters dbdesk does not use (names only). */
    readonly ignored: ReadonlyArray<string>
  }
  | { readonly ok: false; readonly error: string }

const SCHEMES: Record<string, UrlType> = {
  postgresql: "postgresql",
  postgres: "postgresql",
  mysql: "mysql",
  mariadb: "mysql",
  sqlite: "sqlite"
}

const PG_MODES = ["disable", "prefer", "require", "verify-ca", "verify-full"] as const
const MYSQL_MODES = ["disabled", "preferred", "required", "verify-ca", "verify-full"] as const
/** Either family's spelling (libpq's, MySQL's `VERIFY_IDENTITY`) to the connection type's own. */
const MODE_ALIASES: Record<string, number> = {
  disable: 0,
  disabled: 0,
  allow: 1,
  prefer: 1,
  preferred: 1,
  require: 2,
  required: 2,
  "verify-ca": 3,
  "verify-full": 4,
  "verify-identity": 4
}

class UrlProblem extends Error {}

const decode = (text: string, what: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new UrlProblem(`The ${what} in the URL has a malformed percent-escape (write % as %25).`)
  }
}

const sslModeOf = (type: "postgresql" | "mysql", value: string): string => {
  const index = MODE_ALIASES[value.trim().toLowerCase().replace(/_/g, "-")]
  const modes = type === "postgresql" ? PG_MODES : MYSQL_MODES
  if (index === undefined) throw new UrlProblem(`The URL's sslmode must be one of ${modes.join(", ")}.`)
  return modes[index]!
}

const PARAMETERS: Record<string, keyof UrlFields> = {
  sslmode: "sslMode",
  "ssl-mode": "sslMode",
  ssl_mode: "sslMode",
  sslrootcert: "sslCa",
  "ssl-ca": "sslCa",
  sslca: "sslCa",
  sslcert: "sslCert",
  "ssl-cert": "sslCert",
  sslkey: "sslKey",
  "ssl-key": "sslKey",
  user: "user",
  password: "password",
  dbname: "database"
}

const parseSqlite = (rest: string): UrlFields => {
  const [location = ""] = rest.split(/[?#]/, 1)
  let path = location
  if (location.startsWith("//")) {
    const afterSlashes = location.slice(2)
    const slash = afterSlashes.indexOf("/")
    const authority = slash === -1 ? afterSlashes : afterSlashes.slice(0, slash)
    if (authority !== "" && authority !== "localhost") {
      throw new UrlProblem(
        "A sqlite: URL names a local file: write sqlite:///absolute/path.db or sqlite:relative/path.db."
      )
    }
    path = slash === -1 ? "" : afterSlashes.slice(slash)
  }
  const decoded = decode(path, "file path")
  if (decoded === "") throw new UrlProblem("The sqlite: URL has no file path: write sqlite:///absolute/path.db.")
  return { type: "sqlite", path: decoded }
}

const parseServer = (type: "postgresql" | "mysql", rest: string): { fields: UrlFields; ignored: Array<string> } => {
  if (!rest.startsWith("//")) {
    throw new UrlProblem("The URL must have // after the scheme, as in postgresql://user@host:5432/database.")
  }
  const body = rest.slice(2).replace(/#.*$/, "")
  const end = body.search(/[/?]/)
  const authority = end === -1 ? body : body.slice(0, end)
  const afterAuthority = end === -1 ? "" : body.slice(end)
  const queryAt = afterAuthority.indexOf("?")
  const pathPart = queryAt === -1 ? afterAuthority : afterAuthority.slice(0, queryAt)
  const query = queryAt === -1 ? "" : afterAuthority.slice(queryAt + 1)

  const at = authority.lastIndexOf("@")
  const userinfo = at === -1 ? undefined : authority.slice(0, at)
  const hostPort = at === -1 ? authority : authority.slice(at + 1)
  const fields: { -readonly [K in keyof UrlFields]: UrlFields[K] } = { type }
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":")
    const user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon), "user name")
    if (user !== "") fields.user = user
    if (colon !== -1) {
      const password = decode(userinfo.slice(colon + 1), "password")
      if (password !== "") fields.password = password
    }
  }
  let host: string
  let port: string | undefined
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]")
    if (close === -1) throw new UrlProblem("The URL's IPv6 host has no closing ].")
    host = hostPort.slice(1, close)
    const tail = hostPort.slice(close + 1)
    if (tail !== "" && !tail.startsWith(":")) {
      throw new UrlProblem("After an IPv6 host in brackets only :port may follow.")
    }
    port = tail === "" ? undefined : tail.slice(1)
  } else {
    if (hostPort.includes(",")) {
      throw new UrlProblem("The URL names several hosts; dbdesk connects to one: keep one host.")
    }
    const colon = hostPort.lastIndexOf(":")
    host = decode(colon === -1 ? hostPort : hostPort.slice(0, colon), "host")
    port = colon === -1 ? undefined : hostPort.slice(colon + 1)
  }
  if (host === "") throw new UrlProblem("The URL has no host: write the server's name or address after the @.")
  fields.host = host
  if (port !== undefined && port !== "") {
    const number = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN
    if (!(number >= 1 && number <= 65535)) throw new UrlProblem("The URL's port must be a number between 1 and 65535.")
    fields.port = number
  }
  const database = decode(pathPart.replace(/^\//, ""), "database name")
  if (database !== "") fields.database = database

  const ignored: Array<string> = []
  for (const pair of query === "" ? [] : query.split("&")) {
    if (pair === "") continue
    const equals = pair.indexOf("=")
    const name = decode(equals === -1 ? pair : pair.slice(0, equals), "parameter name").toLowerCase()
    const value = decode(equals === -1 ? "" : pair.slice(equals + 1), `${name} parameter`)
    const field = PARAMETERS[name]
    if (field === undefined) {
      ignored.push(name)
      continue
    }
    if (value === "") continue
    ;(fields as Record<string, unknown>)[field] = field === "sslMode" ? sslModeOf(type, value) : value
  }
  return { fields, ignored }
}

/** Reads a connection URL; the error says what is wrong in plain words and never repeats the URL. */
export const parseConnectionUrl = (text: string): ParsedUrl => {
  const trimmed = text.trim()
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(trimmed)
  const type = scheme === null ? undefined : SCHEMES[scheme[1]!.toLowerCase()]
  if (scheme === null || type === undefined) {
    return { ok: false, error: "The URL must start with postgresql://, postgres://, mysql://, mariadb:// or sqlite:." }
  }
  const rest = trimmed.slice(scheme[0].length)
  try {
    if (type === "sqlite") return { ok: true, fields: parseSqlite(rest), ignored: [] }
    const { fields, ignored } = parseServer(type, rest)
    return { ok: true, fields, ignored }
  } catch (error) {
    if (error instanceof UrlProblem) return { ok: false, error: error.message }
    throw error
  }
}

/** The parts of a connection a URL holds (a saved connection, or what the UI knows of one). */
export interface UrlSource {
  readonly type: string
  readonly path?: string | undefined
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly database?: string | undefined
  readonly user?: string | undefined
  readonly sslMode?: string | undefined
  readonly sslCa?: string | undefined
  readonly sslCert?: string | undefined
  readonly sslKey?: string | undefined
}

const encodePath = (path: string): string => path.split("/").map(encodeURIComponent).join("/")

/**
 * A connection as a URL, without its password (there is no parameter for one: the password stays in dbdesk).
 * Undefined for a connection type that has no URL form (a search connection).
 */
export const connectionUrl = (connection: UrlSource): string | undefined => {
  if (connection.type === "sqlite") {
    const path = connection.path ?? ""
    return path.startsWith("/") ? `sqlite://${encodePath(path)}` : `sqlite:${encodePath(path)}`
  }
  if (connection.type !== "postgresql" && connection.type !== "mysql") return undefined
  const host = connection.host ?? ""
  const hostPart = host.includes(":") ? `[${host}]` : encodeURIComponent(host)
  const user = connection.user === undefined || connection.user === "" ? "" : `${encodeURIComponent(connection.user)}@`
  const port = connection.port === undefined ? "" : `:${connection.port}`
  const database = connection.database === undefined || connection.database === ""
    ? ""
    : `/${encodeURIComponent(connection.database)}`
  const entries: ReadonlyArray<readonly [string, string | undefined]> = [
    ["sslmode", connection.sslMode],
    ["sslrootcert", connection.sslCa],
    ["sslcert", connection.sslCert],
    ["sslkey", connection.sslKey]
  ]
  const parameters = entries
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined && entry[1] !== "")
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
  return `${connection.type}://${user}${hostPart}${port}${database === "" && parameters.length > 0 ? "/" : database}${
    parameters.length === 0 ? "" : `?${parameters.join("&")}`
  }`
}
