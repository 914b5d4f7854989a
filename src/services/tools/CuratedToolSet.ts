import { Effect, Either, Runtime } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { CuratedToolDefinition } from "../../domain/CuratedTool.ts"
import { parseCuratedToolsFile } from "../../domain/CuratedToolsFile.ts"
import { SupportPaths } from "../SupportPaths.ts"
import { CuratedToolFactory } from "./CuratedTools.ts"
import type { AnyTool } from "./Tool.ts"
import { LEAN_PRESET } from "./Toolsets.ts"
import { ToolRegistry } from "./ToolRegistry.ts"

/** How often the file's size and time are looked at: a changed set is served within this, well inside tools/list's ttlMs. */
export const CURATED_RECHECK_MS = 1_000

export const curatedToolsPath = (directory: string) => path.join(directory, "tools.json")

export interface CuratedSnapshot {
  /** Changes whenever the served set does (the tools/list answer cache keys on it). */
  readonly version: number
  readonly tools: ReadonlyArray<AnyTool>
  readonly definitions: ReadonlyArray<CuratedToolDefinition>
  /** Why the file on disk is not the set in force (the previous valid set is kept), if it is not. */
  readonly problem: string | undefined
}

/**
 * The curated tools of `tools.json` in the support directory: read when its size or time changes, checked as a whole;
 * a file that fails the check keeps the previous set in force and its problem (with the line) is logged once. Disabled
 * tools are not offered. No `tools.listChanged` notification is sent (the capability stays false): a changed set
 * appears in tools/list within the list's cache lifetime.
 */
export class CuratedToolSet extends Effect.Service<CuratedToolSet>()("dbdesk/services/tools/CuratedToolSet", {
  effect: Effect.gen(function*() {
    const paths = yield* SupportPaths
    const registry = yield* ToolRegistry
    const factory = yield* CuratedToolFactory
    const file = curatedToolsPath(paths.directory)
    const runtime = yield* Effect.runtime<never>()
    // "lean" names the preset of a toolset, so no tool may take it.
    const reserved = [...registry.tools.map((tool) => tool.name), LEAN_PRESET]
    let snapshot: CuratedSnapshot = { version: 0, tools: [], definitions: [], problem: undefined }
    let stamp = "absent"
    let checkedAt = Number.NEGATIVE_INFINITY

    // Synchronous on purpose: tools/list's answer key is computed before any effect runs, and a stat of one small
    // local file at most once a second costs microseconds.
    const reload = (): void => {
      let stat = "absent"
      try {
        const found = fs.statSync(file)
        stat = `${found.mtimeMs}:${found.size}`
      } catch {
        // absent or unreadable: no curated tools
      }
      if (stat === stamp) return
      stamp = stat
      if (stat === "absent") {
        snapshot = { version: snapshot.version + 1, tools: [], definitions: [], problem: undefined }
        return
      }
      let text = ""
      try {
        text = fs.readFileSync(file, "utf8")
      } catch {
        // read as empty: the check below reports it
      }
      const parsed = parseCuratedToolsFile(text, reserved)
      if (Either.isLeft(parsed)) {
        snapshot = { ...snapshot, problem: parsed.left }
        Runtime.runFork(runtime)(
          Effect.logWarning(`tools.json was not loaded, the previous curated tools stay in force: ${parsed.left}`)
        )
        return
      }
      const definitions = parsed.right.tools.filter((tool) => tool.disabled !== true)
      snapshot = {
        version: snapshot.version + 1,
        tools: definitions.map(factory.make),
        definitions,
        problem: undefined
      }
    }

    /** The set in force, re-read first when the last look is older than CURATED_RECHECK_MS. */
    const now = (): CuratedSnapshot => {
      const at = Date.now()
      if (at - checkedAt >= CURATED_RECHECK_MS) {
        checkedAt = at
        reload()
      }
      return snapshot
    }

    /** Looks at the file at once (the CLI and tests, after writing it). */
    const refresh = Effect.sync(() => {
      checkedAt = Date.now()
      reload()
      return snapshot
    })

    return { now, current: Effect.sync(now), refresh } as const
  })
}) {}
