// D-92: the UI's export — started on the server's exporter, watched by polling its progress, cancelled by id.
import { Schema } from "effect"
import { EXPORT_FORMATS } from "./ExportFormat.ts"
import { UiBrowseRequest } from "./UiSchemas.ts"

export const UiExportRequest = Schema.Struct({
  /** Chosen by the UI, so Cancel can name the export before the start answers. */
  runId: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]{1,64}$/)),
  format: Schema.Literal(...EXPORT_FORMATS),
  /** A console result: its statement (only a read is exported). */
  query: Schema.optional(Schema.String),
  schema: Schema.optional(Schema.String),
  /** A table grid: the table with the grid's current filters, search and order. */
  table: Schema.optional(Schema.String),
  grid: Schema.optional(UiBrowseRequest)
})
export type UiExportRequest = typeof UiExportRequest.Type

export const UiExportStatus = Schema.Struct({
  runId: Schema.String,
  state: Schema.Literal("running", "done", "failed", "cancelled"),
  rows: Schema.Number,
  bytes: Schema.Number,
  elapsedMs: Schema.Number,
  /** The finished file. */
  path: Schema.optional(Schema.String),
  /** Why it failed, in plain words. */
  message: Schema.optional(Schema.String)
})
export type UiExportStatus = typeof UiExportStatus.Type

export const UiExportFolder = Schema.Struct({
  /** The setting as saved (empty: the default folder). */
  setting: Schema.String,
  /** The folder exports go into now, or null when the setting names a folder that does not exist. */
  resolved: Schema.NullOr(Schema.String)
})
