import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import type { ServerInfo } from "../domain/ServerInfo.ts"
import { packageVersion } from "./PackageInfo.ts"

export interface ServerIdentityShape {
  /** D-9; `websiteUrl` is the UI origin without any secret. */
  readonly serverInfo: ServerInfo & { readonly title: string; readonly websiteUrl: string }
  /** UUID per start: lets the bridge prove the handshake file names this live server. */
  readonly instanceId: string
  readonly startedAt: Date
}

export class ServerIdentity
  extends Context.Tag("dbdesk/services/ServerIdentity")<ServerIdentity, ServerIdentityShape>()
{
  static readonly make = (websiteUrl: string, overrides?: Partial<ServerInfo>): ServerIdentityShape => ({
    serverInfo: {
      name: "dbdesk",
      title: "dbdesk",
      version: packageVersion(),
      websiteUrl,
      ...overrides
    },
    instanceId: randomUUID(),
    startedAt: new Date()
  })

  static readonly layer = (websiteUrl: string, overrides?: Partial<ServerInfo>) =>
    Layer.sync(ServerIdentity, () => ServerIdentity.make(websiteUrl, overrides))
}

export const serverInfoForResults = Effect.map(ServerIdentity, (identity) => ({
  name: identity.serverInfo.name,
  version: identity.serverInfo.version
}))
