import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { connectionUrl, parseConnectionUrl, type UrlFields } from "../../src/domain/ConnectionUrl.ts"

const text = fc.fullUnicodeString({ minLength: 1, maxLength: 24 })
/** Host names: DNS names, IPv4 and IPv6 addresses, and any text without a colon (percent-encoded in the URL). */
const host = fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6(), text.filter((value) => !value.includes(":")))
const file = fc.fullUnicodeString({ minLength: 1, maxLength: 30 }).map((value) => `/${value}`)
const optional = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined })
const compact = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as A

const serverConnection = fc.oneof(
  fc.record({
    type: fc.constant("postgresql" as const),
    sslMode: fc.constantFrom("disable", "prefer", "require", "verify-ca", "verify-full"),
    database: text
  }),
  fc.record({
    type: fc.constant("mysql" as const),
    sslMode: fc.constantFrom("disabled", "preferred", "required", "verify-ca", "verify-full"),
    database: optional(text)
  })
).chain((kind) =>
  fc.record({
    host,
    port: fc.integer({ min: 1, max: 65535 }),
    user: text,
    sslCa: optional(file),
    sslCert: optional(file),
    sslKey: optional(file)
  })
    .map((rest) => compact({ ...kind, ...rest }) as UrlFields)
)

const parsed = (url: string): UrlFields => {
  const result = parseConnectionUrl(url)
  if (!result.ok) throw new Error(result.error)
  return result.fields
}

describe("connection URLs", () => {
  it.prop(
    "a PostgreSQL or MySQL connection → URL → connection keeps every field (special characters, IPv6 hosts, TLS files)",
    [serverConnection],
    ([connection]) => {
      const url = connectionUrl(connection)!
      expect(parsed(url)).toStrictEqual(connection)
      expect(connectionUrl(parsed(url))).toBe(url)
    }
  )

  it.prop("a SQLite file → URL → file, for any absolute path", [file], ([path]) => {
    const url = connectionUrl({ type: "sqlite", path })!
    expect(url.startsWith("sqlite:///")).toBe(true)
    expect(parsed(url)).toStrictEqual({ type: "sqlite", path })
  })

  it.prop("a URL with a password: the password is read, and no URL dbdesk writes ever contains it", [
    serverConnection,
    text
  ], ([connection, secret]) => {
    const password = `pw-Zq9${secret}`
    const source = connectionUrl(connection)!
    const withPassword = source.replace(
      "://",
      `://${encodeURIComponent(connection.user!)}:${encodeURIComponent(password)}@`
    ).replace(`@${encodeURIComponent(connection.user!)}@`, "@")
    const read = parsed(withPassword)
    expect(read.password).toBe(password)
    const written = connectionUrl(read)!
    expect(written).toBe(source)
    expect(written).not.toContain(encodeURIComponent(password))
    expect(written).not.toContain(password)
    expect(parsed(written).password).toBeUndefined()
  })

  it("S1-d a search connection has no URL form", () => {
    expect(connectionUrl({ type: "search", host: "search.example", port: 443 })).toBeUndefined()
  })

  it("reads each scheme, libpq's and MySQL's spellings of the SSL mode, and the TLS file parameters", () => {
    expect(
      parsed(
        "postgres://me@db.example/app?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&sslcert=/c.pem&sslkey=/k.pem"
      )
    ).toStrictEqual({
      type: "postgresql",
      user: "me",
      host: "db.example",
      database: "app",
      sslMode: "verify-full",
      sslCa: "/etc/ca.pem",
      sslCert: "/c.pem",
      sslKey: "/k.pem"
    })
    expect(parsed("mariadb://root@[::1]:3307/?ssl-mode=VERIFY_IDENTITY")).toStrictEqual({
      type: "mysql",
      user: "root",
      host: "::1",
      port: 3307,
      sslMode: "verify-full"
    })
    expect(parsed("mysql://u@h?sslmode=require").sslMode).toBe("required")
    expect(parsed("postgresql://u@h/d?sslmode=required").sslMode).toBe("require")
    expect(parsed("sqlite:relative/shop.db")).toStrictEqual({ type: "sqlite", path: "relative/shop.db" })
    expect(parsed("sqlite:/abs/shop.db")).toStrictEqual({ type: "sqlite", path: "/abs/shop.db" })
    expect(parsed("sqlite://localhost/abs/shop.db")).toStrictEqual({ type: "sqlite", path: "/abs/shop.db" })
    const neon = parseConnectionUrl("postgresql://u:p@h/d?sslmode=require&channel_binding=require")
    expect(neon).toMatchObject({ ok: true, ignored: ["channel_binding"] })
  })

  it("a URL dbdesk cannot use is explained without repeating it (it may hold a password)", () => {
    const cases: ReadonlyArray<readonly [string, RegExp]> = [
      ["https://u:hunter2@h/d", /must start with postgresql:\/\//],
      ["postgres://u:hunter2@h:99999/d", /port must be a number between 1 and 65535/],
      ["postgres://u:hunter2@h1,h2/d", /several hosts/],
      ["postgres://u:hunter2@h/d?sslmode=sometimes", /sslmode must be one of disable, prefer/],
      ["mysql://u:hunter2@h/d%zz", /database name in the URL has a malformed percent-escape/],
      ["postgres://u:hunter2@/d", /no host/],
      ["sqlite://server/x.db", /names a local file/]
    ]
    for (const [url, message] of cases) {
      const result = parseConnectionUrl(url)
      expect(result).toMatchObject({ ok: false, error: expect.stringMatching(message) })
      expect(JSON.stringify(result)).not.toContain("hunter2")
    }
  })
})
