import { Effect, ParseResult, Schema, type SchemaAST } from "effect"

/**
 * SSL mode of a search-engine connection. `Disabled` uses HTTP, any other mode HTTPS (doc 2 §2.1, S2.1-a).
 * Every HTTPS mode verifies the certificate chain and host name, except `VerifyCA`, which checks the chain only;
 * Skip TLS Verification accepts any certificate.
 */
export const SearchSslMode = Schema.Literal("Disabled", "Preferred", "Required", "VerifyCA", "VerifyIdentity")
export type SearchSslMode = typeof SearchSslMode.Type

/** Default ports: 8108 for `Disabled`, 443 otherwise (D-54). */
export const defaultSearchPort = (sslMode: SearchSslMode): number => (sslMode === "Disabled" ? 8108 : 443)

export const SearchHost = Schema.Trim.pipe(
  Schema.nonEmptyString({ message: () => "Host is required." }),
  Schema.filter((host) =>
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(host) || "Enter the host name only, without http:// or https://."
  ),
  Schema.filter((host) =>
    !/[\s/?#@]/.test(host) || "The host must be a name or an address, without spaces, a path or a user."
  )
)

export const SearchPort = Schema.Number.pipe(
  Schema.int({ message: () => "The port must be a whole number from 1 to 65535." }),
  Schema.between(1, 65535, { message: () => "The port must be a whole number from 1 to 65535." })
)

const sslModeField = Schema.optionalWith(SearchSslMode, { default: () => "Disabled" as const })
const skipTlsField = Schema.optionalWith(Schema.Boolean, { default: () => false })

/** One node of a cluster (doc 2 §2.1 host and port, plus the protocol each node of the official client has). */
export const SearchNode = Schema.Struct({
  protocol: Schema.Literal("http", "https"),
  host: SearchHost,
  port: SearchPort
})
export type SearchNode = typeof SearchNode.Type

/** `https://host:443`; an IPv6 literal is bracketed. */
export const nodeOrigin = (node: SearchNode): string =>
  `${node.protocol}://${
    node.host.includes(":") && !node.host.startsWith("[") ? `[${node.host}]` : node.host
  }:${node.port}`

const NODE_URL = /^(https?):\/\/(\[[^\]]+\]|[^:/?#@\s]+):(\d{1,5})\/?$/i

const parseNode = (text: string): SearchNode | string => {
  const match = NODE_URL.exec(text.trim())
  if (match === null) {
    return `"${text.trim()}" is not a node: write it as protocol://host:port, for example https://node1.example.com:443`
  }
  const port = Number(match[3])
  if (port < 1 || port > 65535) return `"${text.trim()}": the port must be from 1 to 65535`
  return { protocol: match[1]!.toLowerCase() as "http" | "https", host: match[2]!.replace(/^\[|\]$/g, ""), port }
}

/**
 * The fields of a search-engine connection (doc 2 §2.1): one cluster, no Database field (S1-c), the API key is the
 * only credential (S5-a) and prints as `<redacted>`.
 */
export class SearchConnectionSettings extends Schema.Class<SearchConnectionSettings>("SearchConnectionSettings")({
  host: SearchHost,
  port: SearchPort,
  apiKey: Schema.Redacted(Schema.String),
  sslMode: sslModeField,
  skipTlsVerification: skipTlsField,
  /** D-59: the cluster beyond the first node (host, port), as the official client configures it. */
  cluster: Schema.optionalWith(
    Schema.Struct({
      nodes: Schema.optional(Schema.Array(Schema.typeSchema(SearchNode))),
      nearestNode: Schema.optional(Schema.typeSchema(SearchNode)),
      healthcheckIntervalSeconds: Schema.optional(Schema.Number),
      numRetries: Schema.optional(Schema.Number),
      retryIntervalSeconds: Schema.optional(Schema.Number),
      connectionTimeoutSeconds: Schema.optional(Schema.Number),
      randomizeNodes: Schema.optional(Schema.Boolean)
    }),
    { default: () => ({}) }
  )
}) {
  /** Every node in order: the first (host, port and the SSL mode's protocol), then the cluster's `nodes`. */
  get allNodes(): ReadonlyArray<SearchNode> {
    return [{ protocol: this.scheme, host: this.host, port: this.port }, ...(this.cluster.nodes ?? [])]
  }
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

/** Decodes a filled-in form into settings, applying the port default of D-55; all problems at once. */
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

const fail = (ast: SchemaAST.AST, actual: unknown, message: string) =>
  ParseResult.fail(new ParseResult.Type(ast, actual, message))

/** A node written as its URL (`https://node1:443`), as in connections.json, the form and `--nearest-node`. */
export const SearchNodeUrl = Schema.transformOrFail(Schema.String, Schema.typeSchema(SearchNode), {
  strict: true,
  decode: (text, _options, ast) => {
    const node = parseNode(text)
    return typeof node === "string" ? fail(ast, text, node) : ParseResult.succeed(node)
  },
  encode: (node) => ParseResult.succeed(nodeOrigin(node))
})

/** More nodes of the cluster, comma-separated URLs (`http://a:8108, http://b:8108`). */
export const SearchNodeList = Schema.transformOrFail(Schema.String, Schema.Array(Schema.typeSchema(SearchNode)), {
  strict: true,
  decode: (text, _options, ast) => {
    const nodes: Array<SearchNode> = []
    for (const part of text.split(",").filter((item) => item.trim() !== "")) {
      const node = parseNode(part)
      if (typeof node === "string") return fail(ast, text, node)
      nodes.push(node)
    }
    return ParseResult.succeed(nodes)
  },
  encode: (nodes) => ParseResult.succeed(nodes.map(nodeOrigin).join(", "))
})

/**
 * A search connection's cluster settings, named as in the official client (healthcheckIntervalSeconds, numRetries,
 * retryIntervalSeconds, connectionTimeoutSeconds, randomizeNodes); absent ones follow the official defaults for a cluster and keep a
 * single node's old behaviour (no retry, no per-request timeout).
 */
export const SearchClusterFields = {
  nodes: Schema.optionalWith(SearchNodeList, { exact: true }),
  nearestNode: Schema.optionalWith(SearchNodeUrl, { exact: true }),
  healthcheckIntervalSeconds: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 86_400)), { exact: true }),
  numRetries: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 100)), { exact: true }),
  retryIntervalSeconds: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 60)), { exact: true }),
  connectionTimeoutSeconds: Schema.optionalWith(Schema.Number.pipe(Schema.between(0.1, 600)), { exact: true }),
  /** The official client shuffles the nodes once (default true) so that clients spread over the cluster. */
  randomizeNodes: Schema.optionalWith(Schema.Boolean, { exact: true })
}

export interface SearchCluster {
  readonly nodes?: ReadonlyArray<SearchNode> | undefined
  readonly nearestNode?: SearchNode | undefined
  readonly healthcheckIntervalSeconds?: number | undefined
  readonly numRetries?: number | undefined
  readonly retryIntervalSeconds?: number | undefined
  readonly connectionTimeoutSeconds?: number | undefined
  readonly randomizeNodes?: boolean | undefined
}
