import { Schema } from "effect"

/**
 * What the UI's structure view shows beyond `describe_table` (CHECK constraints, triggers, the foreign keys of other
 * tables that point at this one). Not part of any MCP tool's answer: the MCP wire shapes stay as they are.
 */
export const CheckDescription = Schema.Struct({
  /** Null when the engine keeps no name (an unnamed SQLite CHECK). */
  name: Schema.NullOr(Schema.String),
  expression: Schema.String
})
export type CheckDescription = typeof CheckDescription.Type

export const TriggerDescription = Schema.Struct({
  name: Schema.String,
  /** BEFORE, AFTER or INSTEAD OF. */
  timing: Schema.String,
  /** INSERT, UPDATE, DELETE, TRUNCATE, joined with " OR " when a trigger fires on several. */
  event: Schema.String,
  /** The statement that creates it, as the engine gives it back. */
  definition: Schema.String
})
export type TriggerDescription = typeof TriggerDescription.Type

/** A foreign key of `table` whose referenced table is the one described; `columns` pair with `referenced_columns`. */
export const IncomingReference = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  table: Schema.String,
  columns: Schema.Array(Schema.String),
  referenced_columns: Schema.Array(Schema.String)
})
export type IncomingReference = typeof IncomingReference.Type

export const StructureDetails = Schema.Struct({
  checks: Schema.Array(CheckDescription),
  triggers: Schema.Array(TriggerDescription),
  referenced_by: Schema.Array(IncomingReference),
  /** Statements the table's DDL text leaves out (PostgreSQL's comments, triggers outside SQLite), each ending in `;`. */
  ddl_additions: Schema.Array(Schema.String)
})
export type StructureDetails = typeof StructureDetails.Type
