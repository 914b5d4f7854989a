import { Command, Options } from "@effect/cli"
import { ACTIVITY_EXPORT_FORMATS } from "../services/activity/ActivityExport.ts"
import { described, homeOption as home, jsonOption as json } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Activity.ts")
const since = Options.text("since").pipe(
  Options.withDescription("only events at or after this: 30m, 24h, 7d, a date (2026-11-01) or an ISO time"),
  Options.optional
)
const client = Options.text("client").pipe(
  Options.withDescription("only events of this client (its clientInfo name or title)"),
  Options.optional
)

const list = Command.make("list", {
  home,
  json,
  since,
  client,
  limit: Options.integer("limit").pipe(
    Options.withDescription("at most this many events, newest first (1–10000)"),
    Options.withDefault(50)
  )
}, lazyHandler(handlers, (m) => m.list)).pipe(
  Command.withDescription(
    described(
      "Show recent activity: tool calls, resource reads, approvals, tokens, sign-ins (digests, never statements).",
      [
        "dbdesk activity list --since 24h",
        "dbdesk activity list --client \"Claude Desktop\" --json"
      ]
    )
  )
)

const exportCommand = Command.make("export", {
  home,
  since,
  client,
  format: Options.choice("format", ACTIVITY_EXPORT_FORMATS).pipe(
    Options.withDescription("csv (as the UI's download) or jsonl (one JSON object per line)")
  ),
  output: Options.text("output").pipe(
    Options.withDescription("write to this file (atomically, 0600) instead of standard output"),
    Options.optional
  )
}, lazyHandler(handlers, (m) => m.exportActivity)).pipe(
  Command.withDescription(
    described(
      "Export the activity log, oldest first, as CSV or JSON lines (up to 1,000,000 events; the log keeps 90 days).",
      [
        "dbdesk activity export --format csv > activity.csv",
        "dbdesk activity export --format jsonl --since 7d --output week.jsonl"
      ]
    )
  )
)

/**
 * `dbdesk activity verify` (D-51): walks the chain and names the first row that
 * was edited, inserted or deleted; exits 1 when it finds one or cannot read the log.
 */
const verify = Command.make("verify", { home, json }, lazyHandler(handlers, (m) => m.verify)).pipe(
  Command.withDescription(
    described("Check the activity log's hash chain; names the first edited, inserted or deleted row.", [
      "dbdesk activity verify",
      "dbdesk activity verify --json"
    ])
  )
)

/** `dbdesk activity list|export|verify` */
export const activityCommand = Command.make("activity").pipe(
  Command.withDescription(
    described("The MCP activity log (activity.db).", ["dbdesk activity list --since 1h", "dbdesk activity verify"])
  ),
  Command.withSubcommands([list, exportCommand, verify])
)
