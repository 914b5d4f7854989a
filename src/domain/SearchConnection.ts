import { Effect, ParseResult, Schema } from "effect"

/**
 * SSL mode of a search-engine connection. `Disabled` uses HTTP, any other mode HTTPS (doc 2 §2.1, S2.1-a).
 * Every HTTPS mode verifies the certificate chain and host name, except `VerifyCA`, which checks the chain only;
 * Skip TLS Verification accepts any certificate.
 */
export const SearchSslMode = Schema.Literal("Disabled", "Preferred", "Required", "VerifyCA", "VerifyIdentity")
export type SearchSslMode = typeof SearchSslMode.Type

/** Default ports: 8108 for `Disabled`, 443 otherwise (product-decisions §8). */
export const defaultSearchPort = (sslMode: SearchSslMode): number => (sslMode === "Disabled" ? 8108 : 443)

export const SearchHost = Schema.Trim.pipe(
  Schema.nonEmptyString({ message: () => "Host is required." }),
  Schema.filter((host) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(host) || "Enter the host name only, without http:// or https://."),
  Schema.filter((host) => !/[\s/?#@]/.test(host) || "The host must be a name or an address, without spaces, a path or a user.")
)

export const SearchPort = Schema.Number.pipe(
  Schema.int({ message: () => "The port must be a whole number from 1 to 65535." }),
  Schema.between(1, 65535, { message: () => "The port must be a whole number from 1 to 65535." })
)

const sslModeField = Schema.optionalWith(SearchSslMode, { default: () => "Disabled" as const })
const skipTlsField = Schema.optionalWith(Schema.Boolean, { default: () => false })

/**
 * The fields of a search-engine connection (doc 2 §2.1): one cluster, no Database field (S1-c), the API key is the
 * only credential (S5-a) and prints as `<redacted>`.
 */
export class SearchConnectionSettings extends Schema.Class<SearchConnectionSettings>("SearchConnectionSettings")({
  host: SearchHost,
  port: SearchPort,
  apiKey: Schema.Redacted(Schema.String),
  sslMode: sslModeField,
  skipTlsVerification: skipTlsField
}) {
  get scheme(): "http" | "https" {
    return this.sslMode === "Disabled" ? "http" : "https"
  }
  /** Origin of every request; an IPv6 literal is bracketed. */
  get origin(): string {
    const host = this.host.includes(":") && !this.host.startsWith("[") ? `[${this.host}]` : this.host
    return `${this.scheme}://${host}:${this.port}`
  }
}

/** The form as typed by a person: the port may be left out (or blank) and then follows the SSL mode. */
export const SearchConnectionForm = Schema.Struct({
  host: Schema.String,
  port: Schema.optionalWith(Schema.Union(Schema.Number, Schema.Literal("")), { exact: true }),
  apiKey: Schema.String,
  sslMode: Schema.optionalWith(SearchSslMode, { exact: true }),
  skipTlsVerification: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type SearchConnectionForm = typeof SearchConnectionForm.Type

/** Decodes a filled-in form into settings, applying the port default of product-decisions §8; all problems at once. */
export const decodeSearchConnectionForm = (input: unknown) =>
  Schema.decodeUnknown(SearchConnectionForm)(input, { errors: "all" }).pipe(
    Effect.flatMap((form) => {
      const sslMode = form.sslMode ?? "Disabled"
      return Schema.decodeUnknown(SearchConnectionSettings)(
        {
          host: form.host,
          port: form.port === undefined || form.port === "" ? defaultSearchPort(sslMode) : form.port,
          apiKey: form.apiKey,
          sslMode,
          skipTlsVerification: form.skipTlsVerification ?? false
        },
        { errors: "all" }
      )
    })
  )

/** Plain-language messages of a failed decode, one per problem, for the connection form. */
export const settingsProblems = (error: ParseResult.ParseError): ReadonlyArray<string> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
    issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
  )
