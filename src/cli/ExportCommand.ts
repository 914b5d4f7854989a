import { Command, Options } from "@effect/cli"
import { described, homeOption as home } from "./CliSupport.ts"
import { lazyHandler } from "./Lazy.ts"

const handlers = () => import("./handlers/Export.ts")

/** `dbdesk export` (D-92): a read's rows streamed to a file, with a progress line on a terminal. */
export const exportCommand = Command.make("export", {
  home,
  connection: Options.text("connection").pipe(
    Options.withDescription("the connection's id or exact name (dbdesk connection list)")
  ),
  sql: Options.text("sql").pipe(
    Options.withDescription("a statement that reads (give this or --table)"),
    Options.optional
  ),
  table: Options.text("table").pipe(
    Options.withDescription("a table or view to export whole (give this or --sql)"),
    Options.optional
  ),
  format: Options.choice("format", ["csv", "jsonl", "json", "sql"]).pipe(
    Options.withDescription(
      "csv (like psql's \\copy CSV), jsonl (one JSON object a line), json (an array) or sql (INSERT statements)"
    )
  ),
  output: Options.text("output").pipe(
    Options.withDescription(
      "the file to write; if it exists, name-1.ext, name-2.ext… is written instead (never overwritten)"
    )
  )
}, lazyHandler(handlers, (m) => m.exportData)).pipe(Command.withDescription(described(
  "Export the rows of a statement or a table to a file (CSV, JSON Lines, JSON or SQL INSERTs), streamed from the database so memory stays flat. Only statements that read are run; the file is private to you (mode 0600) and removed if the export fails or is interrupted.",
  [
    "dbdesk export --connection \"Sample (SQLite)\" --table orders --format csv --output ~/orders.csv",
    "dbdesk export --connection Prod --sql \"SELECT * FROM events WHERE day = current_date\" --format jsonl --output events.jsonl"
  ]
)))
