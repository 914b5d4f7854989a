import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { UiApi } from "../../domain/UiApi.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import { CONSOLE_TEXT_MAX_CHARS } from "../../domain/UiWorkSchemas.ts"
import { ActivityLog } from "../../services/ActivityLog.ts"
import { Connections } from "../../services/Connections.ts"
import { DriverRegistry } from "../../services/DriverRegistry.ts"
import { Pairing } from "../../services/Pairing.ts"
import { ConsoleTabs } from "../../services/ConsoleTabs.ts"
import { SavedQueries } from "../../services/SavedQueries.ts"
import { SupportPaths } from "../../services/SupportPaths.ts"
import { McpServerAddress } from "../NodeMcpServer.ts"
import { clientSetup, testBridge } from "./ClientSetup.ts"
import { forUi } from "./UiErrors.ts"

/** Saved queries, "Connect a client", pairing approval, the plugin switch and the chain check (D-55). */
export const WorkHandlers = HttpApiBuilder.group(UiApi, "work", (handlers) =>
  Effect.gen(function*() {
    const saved = yield* SavedQueries
    const paths = yield* SupportPaths
    const address = yield* McpServerAddress
    const pairing = yield* Pairing
    const registry = yield* DriverRegistry
    const connections = yield* Connections
    const activity = yield* ActivityLog
    const consoleTabs = yield* ConsoleTabs
    return handlers
      .handle("savedQueries", () => forUi(saved.list))
      .handle("saveQuery", ({ payload }) =>
        forUi(Effect.gen(function*() {
          const name = payload.name.trim()
          if (name === "") return yield* new UiError({ message: "Give the query a name." })
          if (payload.text.trim() === "") {
            return yield* new UiError({ message: "There is no statement to save; type one first." })
          }
          return yield* saved.save({ ...payload, name })
        })))
      .handle("deleteQuery", ({ path }) => forUi(saved.remove(path.id)))
      .handle("consoleTabs", ({ path }) => consoleTabs.get(path.id))
      .handle("saveConsoleTabs", ({ path, payload }) =>
        forUi(Effect.gen(function*() {
          if ((yield* connections.get(path.id)) === undefined) {
            return yield* new UiError({ message: "This connection no longer exists. Reload the page." })
          }
          yield* consoleTabs.put(path.id, payload).pipe(
            Effect.catchTag("ConsoleTextTooLarge", () =>
              Effect.fail(
                new UiError({
                  message: `The console tabs of this connection hold more than ${
                    CONSOLE_TEXT_MAX_CHARS / 1024
                  } KB of text, too much to keep; close a tab or save a long script as a file.`
                })
              ))
          )
        })))
      .handle("clientSetup", () => Effect.sync(() => clientSetup(paths.directory, address.url)))
      .handle("testBridge", () => testBridge(paths.directory))
      .handle("approvePairing", ({ payload }) =>
        Effect.mapError(pairing.approve(payload), (message) => new UiError({ message })))
      .handle("disableDriver", ({ path }) =>
        forUi(Effect.gen(function*() {
          if (path.type !== "search") {
            return yield* new UiError({ message: `${path.type} is built in and cannot be turned off.` })
          }
          const using = (yield* connections.list).filter((connection) =>
            connection.type === "search"
          )
          if (using.length > 0) {
            return yield* new UiError({
              message: `${using.length} saved connection${
                using.length === 1 ? " uses" : "s use"
              } the Typesense driver (${using.map((c) => c.name).join(", ")}); remove ${
                using.length === 1 ? "it" : "them"
              } first, since opening one turns the driver back on.`
            })
          }
          yield* registry.disable("search")
          return yield* registry.list
        })))
      .handle("verifyChain", () =>
        Effect.map(activity.verify, (verdict) =>
          verdict.ok
            ? {
              ok: true,
              rows: verdict.rows,
              message: `The activity log is intact: ${verdict.rows.toLocaleString("en-US")} rows, every link checked.`
            }
            : { ok: false, rows: null, message: `The activity log was altered: ${verdict.message}.` }))
  }))
