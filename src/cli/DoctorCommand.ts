import { Command } from "@effect/cli"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

/** `dbdesk doctor` (D-78). */
export const doctorCommand = Command.make(
  "doctor",
  { home, json },
  lazyHandler(() => import("./handlers/Doctor.ts"), (m) => m.doctor)
).pipe(
  Command.withDescription(
    described(
      "Check this installation and its support directory, explain each problem in plain words and how to fix it; exit 1 when something is broken. Changes nothing.",
      [
        "dbdesk doctor",
        "dbdesk doctor --json",
        "DBDESK_HOME=/other/dir dbdesk doctor"
      ]
    )
  )
)
