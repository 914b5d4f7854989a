import { Effect } from "effect"
import { runBridge } from "./Bridge.ts"
import { FileInspector } from "./HandshakeTrust.ts"

/** Waits until everything written to stdout has been handed to the OS, then exits with `code`. */
const exitAfterFlush = (code: number) =>
  Effect.async<never>(() => {
    process.stdout.write("", () => process.exit(code))
  })

/** The bridge on this process's stdio; only JSON-RPC goes to stdout (D-53). */
export const bridgeMain = (home: string | undefined) =>
  runBridge({
    ...(home === undefined ? {} : { home }),
    input: process.stdin,
    output: process.stdout,
    errors: process.stderr
  }).pipe(Effect.provide(FileInspector.layer), Effect.flatMap(exitAfterFlush))
