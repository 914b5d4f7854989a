/** Wire contract §5 point 7 and product-decisions §4 "Scopes by level". */
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
}

export const anonymousPrincipal = (address: string): Principal => ({
  key: `anonymous:${address}`,
  kind: "anonymous",
  access: "anonymous",
  scopes: scopesForLevel("anonymous"),
  connections: "all"
})
