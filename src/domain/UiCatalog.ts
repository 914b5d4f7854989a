import { Schema } from "effect"

/** What a sidebar entry is: its icon, and what Enter does with it (a function opens a console, the rest a tab). */
export const UiObjectKind = Schema.Literal("table", "view", "materializedView", "function", "procedure", "collection")
export type UiObjectKind = typeof UiObjectKind.Type

/**
 * One object of the sidebar tree (D-98): `name` is what the UI API's table paths accept (bare in `public`,
 * schema-qualified elsewhere, as the table list names it), `label` the object's own name; `signature` gives a
 * function's argument types so overloads tell apart.
 */
export const UiCatalogObject = Schema.Struct({
  name: Schema.String,
  label: Schema.String,
  schema: Schema.NullOr(Schema.String),
  kind: UiObjectKind,
  rowCount: Schema.NullOr(Schema.Number),
  signature: Schema.NullOr(Schema.String)
})
export type UiCatalogObject = typeof UiCatalogObject.Type

/**
 * The top of the sidebar tree (D-98): the server's databases with the one the connection reaches, and that
 * database's schemas. `schemas` is empty when the engine has no schema level to show (SQLite's `main`, a MySQL
 * database, a search cluster): the objects then sit directly under the connection.
 */
export const UiCatalog = Schema.Struct({
  databases: Schema.Array(Schema.String),
  database: Schema.NullOr(Schema.String),
  schemas: Schema.Array(Schema.String),
  /** The schema unqualified names resolve in (PostgreSQL `public`), opened first. */
  defaultSchema: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String)
})
export type UiCatalog = typeof UiCatalog.Type

/** One schema's objects (or all of them where there is no schema level), loaded when the schema is expanded. */
export const UiCatalogObjects = Schema.Struct({
  objects: Schema.Array(UiCatalogObject),
  note: Schema.NullOr(Schema.String)
})
export type UiCatalogObjects = typeof UiCatalogObjects.Type
