import { Effect } from "effect"
import type { JsonObject } from "../../domain/Json.ts"
import { ProtocolError } from "../../domain/ProtocolErrors.ts"
import type { McpMethod } from "../McpMethod.ts"

/** The RFC 5424 severities the 2025 revisions name for `logging/setLevel`. */
export const LOGGING_LEVELS: ReadonlyArray<string> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

/**
 * Wire contract §4.3: `logging/setLevel` is legacy only and needs no scope. dbdesk sends no log
 * notifications (there is no GET stream, §4.3), so a valid level is acknowledged and nothing more.
 */
export const LoggingSetLevelMethod = Effect.succeed(
  {
    name: "logging/setLevel",
    eras: ["legacy"],
    scopes: [],
    prepare: (context) => {
      const level = context.params["level"]
      if (typeof level === "string" && LOGGING_LEVELS.includes(level)) {
        return Effect.succeed(
          Effect.succeed<JsonObject>({})
        )
      }
      return Effect.fail(
        ProtocolError.invalidParams(`params.level must be one of ${LOGGING_LEVELS.join(", ")}`, {
          level: level ?? null
        })
      )
    }
  } satisfies McpMethod
)
