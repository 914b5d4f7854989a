import type { TokenRecord } from "./Token.ts"

/** Wire contract §5 point 7 and D-32. */
export type AccessLevel = "readOnly" | "readWrite" | "fullAccess"
export type Scope = "tools:read" | "resources:read" | "tools:write" | "admin"

export const scopesForLevel = (level: AccessLevel | "anonymous"): ReadonlyArray<Scope> => {
  switch (level) {
    case "anonymous":
    case "readOnly":
      return ["tools:read", "resources:read"]
    case "readWrite":
      return ["tools:read", "resources:read", "tools:write"]
    case "fullAccess":
      return ["tools:read", "resources:read", "tools:write", "admin"]
  }
}

export interface Principal {
  /** Stable key for per-caller state: `token:<id>` or `anonymous:<address>`. */
  readonly key: string
  readonly kind: "anonymous" | "token"
  readonly access: AccessLevel | "anonymous"
  readonly scopes: ReadonlyArray<Scope>
  readonly tokenId?: string
  readonly tokenName?: string
  /** `"all"` or the connection ids the token may reach. */
  readonly connections: "all" | ReadonlyArray<string>
  /** The tools the token may list and call (built-in and curated names, or the preset "lean"); absent: every tool. */
  readonly tools?: ReadonlyArray<string>
}

export const anonymousPrincipal = (address: string): Principal => ({
  key: `anonymous:${address}`,
  kind: "anonymous",
  access: "anonymous",
  scopes: scopesForLevel("anonymous"),
  connections: "all"
})

export const tokenPrincipal = (
  token: Pick<TokenRecord, "id" | "name" | "access" | "connections" | "bridge" | "tools">
): Principal => ({
  // Product-decisions §4 "Bridge token": rotation is not revocation, so every bridge value is one caller.
  key: token.bridge ? "bridge" : `token:${token.id}`,
  kind: "token",
  access: token.access,
  scopes: scopesForLevel(token.access),
  tokenId: token.id,
  tokenName: token.name,
  connections: token.connections,
  ...(token.tools === undefined ? {} : { tools: token.tools })
})
