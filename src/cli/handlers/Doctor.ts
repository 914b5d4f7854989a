import { Console, Effect, Option } from "effect"
import { filesOf } from "../SupportFiles.ts"
import * as checks from "./DoctorChecks.ts"
import { printJson } from "./Output.ts"

const MARK = { ok: "[ok]  ", warn: "[warn]", fail: "[FAIL]" } as const

/**
 * `dbdesk doctor` (D-78): checks the installation and the support directory without changing
 * anything, explains each finding in plain words with a fix, and exits 1 when something is broken
 * (a warning, such as a server that is not running, leaves the exit code 0).
 */
export const doctor = (options: { readonly home: Option.Option<string>; readonly json: boolean }) =>
  Effect.gen(function*() {
    const files = filesOf(Option.getOrUndefined(options.home))
    const settings = yield* checks.settingsCheck(files)
    const server = yield* checks.serverCheck(files)
    const results = [
      yield* checks.nodeCheck,
      ...(yield* checks.directoryChecks(files)),
      settings.check,
      server.check,
      ...(yield* checks.portChecks(settings.settings, server.running)),
      yield* checks.sqliteCheck,
      yield* checks.tokensCheck(files, settings.settings),
      ...(yield* checks.connectionChecks(files)),
      ...(yield* checks.clientChecks(files))
    ]
    const failed = results.filter((result) => result.status === "fail").length
    const warned = results.filter((result) => result.status === "warn").length
    if (options.json) yield* printJson({ ok: failed === 0, supportDirectory: files.directory, checks: results })
    else {
      for (const result of results) {
        yield* Console.log(`${MARK[result.status]} ${result.title}: ${result.detail}`)
        if (result.fix !== undefined) yield* Console.log(`       fix: ${result.fix}`)
      }
      yield* Console.log(
        failed === 0
          ? `All is well${warned === 0 ? "" : ` (${warned} warning${warned === 1 ? "" : "s"} above)`}.`
          : `${failed} problem${failed === 1 ? "" : "s"} found${
            warned === 0 ? "" : ` and ${warned} warning${warned === 1 ? "" : "s"}`
          }.`
      )
    }
    if (failed > 0) process.exitCode = 1
  })
