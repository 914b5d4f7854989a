import { Effect } from "effect"
import type { AnswerLimits } from "../../domain/AnswerBudget.ts"
import type { ApprovalPreview } from "../../domain/ApprovalPreview.ts"
import type { BrowseFilter, FilterOperator, GridFilter, GridQuery } from "../../domain/SqlBrowse.ts"
import { FilterOperator as SqlOperator } from "../../domain/SqlBrowse.ts"
import { rawWhereRefusal } from "../../domain/RawWhere.ts"
import { readOnlyReason } from "../../domain/SqlEdits.ts"
import type { SqlDialect } from "../../domain/SqlLexer.ts"
import { classifyStatement } from "../../domain/StatementClassifier.ts"
import type {
  UiBrowseRequest,
  UiColumn,
  UiConsoleResult,
  UiPage,
  UiStructure,
  UiTableList
} from "../../domain/UiSchemas.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import type { DatabaseDriver, Namespace } from "../../services/drivers/Driver.ts"
import { plainConsoleNote, plainNotes } from "./PlainNotes.ts"
import { changesSchema } from "../../services/StatementRecorder.ts"
import { uiMessage } from "./UiErrors.ts"

/** D-98: a tab's own database, reached as the MCP tools' `database` argument reaches it; absent or empty: the connection's. */
export const databaseOf = (params: { readonly database?: string | undefined }): Namespace | undefined =>
  params.database === undefined || params.database === "" ? undefined : { database: params.database }

const sqlOperators = new Set<string>(SqlOperator.literals)
/** The filter bar's own operators (D-85), beyond `browse_table`'s. */
const patternOperators = new Set(["ends_with", "like", "ilike"])

/** Binary columns are left out of the any-column search: their text form is hex or raw bytes, not what a person types. */
const searchable = (column: UiColumn) => !/blob|bytea|binary/i.test(column.type)

/** A SQL grid is editable when its rows can be found again by primary key (D-86). */
const editability = (table: string, columns: ReadonlyArray<UiColumn>) => {
  const reason = readOnlyReason({ table, columns })
  return reason === undefined ? { editable: true } : { editable: false, readOnlyReason: reason }
}

export const sqlTables = (driver: DatabaseDriver, namespace?: Namespace) =>
  Effect.map(driver.listTables({ includeRowCounts: true, ...namespace }), (tables): UiTableList => ({
    tables: tables.map((table) => ({ name: table.name, kind: table.type, rowCount: table.row_count ?? null })),
    note: tables.length === 0 ? "This database has no tables yet." : null
  }))

export const sqlStructure = (driver: DatabaseDriver, table: string, namespace?: Namespace) =>
  Effect.gen(function*() {
    const description = yield* driver.describeTable(table, namespace)
    const ddl = description.ddl ?? (yield* Effect.orElseSucceed(driver.tableDdl(table, namespace), () => ""))
    const structure: UiStructure = {
      columns: description.columns.map((column): UiColumn => ({
        name: column.name,
        type: column.data_type,
        isPrimaryKey: column.is_primary_key,
        // binary values are shown as hex literals; the grid does not edit them
        isReadOnly: /blob|bytea|binary/i.test(column.data_type),
        nullable: column.is_nullable,
        sortable: column.is_sortable,
        sortNote: column.is_sortable ? null : "This column's type cannot be sorted."
      })),
      indexes: description.indexes.map((index) => ({
        name: index.name,
        columns: index.columns,
        unique: index.is_unique
      })),
      foreignKeys: description.foreign_keys.map((key) => ({
        columns: key.columns,
        references: `${key.referenced_table}(${key.referenced_columns.join(", ")})`,
        referencedTable: key.referenced_table,
        referencedColumns: key.referenced_columns,
        onUpdate: key.on_update ?? null,
        onDelete: key.on_delete ?? null
      })),
      columnDetails: description.columns.map((column) => ({
        name: column.name,
        defaultValue: column.default_value ?? null,
        comment: column.comment ?? null
      })),
      definition: ddl,
      readOnly: true
    }
    return structure
  })

/**
 * The structure view: `sqlStructure` plus CHECK constraints, triggers and the foreign keys pointing at the table. Like
 * the rest of the UI API it reads as the connection's own user, without the MCP side's secret-catalog gates (D-64: the UI
 * is the user's own client). A part the engine refuses to list becomes a note rather than failing the whole view.
 */
export const sqlStructureView = (driver: DatabaseDriver, table: string, namespace?: Namespace) =>
  Effect.gen(function*() {
    const structure = yield* sqlStructure(driver, table, namespace)
    const details = yield* Effect.either(driver.structureDetails(table, namespace))
    if (details._tag === "Left") {
      if (details.left._tag === "TableNotFound") return yield* details.left
      const reason = "message" in details.left && typeof details.left.message === "string"
        ? details.left.message
        : details.left._tag
      return {
        ...structure,
        notes: [`Checks, triggers and references could not be read: ${reason}`]
      } satisfies UiStructure
    }
    const additions = details.right.ddl_additions.filter((statement) => !structure.definition.includes(statement))
    const view: UiStructure = {
      ...structure,
      // SHOW CREATE TABLE ends without a semicolon; the statements after it need one
      definition: [
        additions.length > 0 ? structure.definition.replace(/(?<=[^;\s])\s*$/, ";") : structure.definition,
        ...additions
      ]
        .filter((text) => text !== "").join("\n"),
      checks: details.right.checks,
      triggers: details.right.triggers,
      referencedBy: details.right.referenced_by.map((reference) => ({
        name: reference.name,
        table: reference.table,
        columns: reference.columns,
        referencedColumns: reference.referenced_columns
      }))
    }
    return view
  })

const splitList = (value: string) => value.split(",").map((item) => item.trim()).filter((item) => item !== "")

/** Filter bar rows for a SQL table; `browse_table`'s operators only. */
const sqlFilters = (request: UiBrowseRequest) =>
  Effect.forEach(request.filters, (row): Effect.Effect<GridFilter, UiError> => {
    if (patternOperators.has(row.operator)) {
      return Effect.succeed({
        column: row.column,
        operator: row.operator as "ends_with" | "like" | "ilike",
        value: row.value ?? ""
      })
    }
    if (!sqlOperators.has(row.operator)) {
      return Effect.fail(
        new UiError({
          message: `The operator '${
            row.operator.replaceAll("_", " ")
          }' is not available for SQL tables yet; use contains or a console query.`
        })
      )
    }
    const operator = row.operator as FilterOperator
    const filter: BrowseFilter = operator === "is_null" || operator === "is_not_null"
      ? { column: row.column, operator }
      : operator === "in" || operator === "not_in"
      ? { column: row.column, operator, value: splitList(row.value ?? "") }
      : {
        column: row.column,
        operator,
        value: row.value ?? "",
        ...(operator === "between" ? { second_value: row.secondValue ?? "" } : {})
      }
    return Effect.succeed(filter)
  })

/**
 * The order every page is read in: the user's sorts, then the primary key (so rows equal on the sorted columns keep
 * a fixed order between pages); without sorts, the primary key alone. A table without a key has no order the database
 * keeps, and the grid says so instead of pretending.
 */
export const pageOrder = (request: UiBrowseRequest, columns: ReadonlyArray<UiColumn>) => {
  const keys = columns.filter((column) => column.isPrimaryKey && column.sortable).map((column) => column.name)
  const sorted = new Set(request.sort.map((s) => s.column))
  const sort = [
    ...request.sort,
    ...keys.filter((key) => !sorted.has(key)).map((column) => ({ column, direction: "asc" as const }))
  ]
  const names = (list: ReadonlyArray<string>) => list.join(", ")
  const order = request.sort.length > 0
    ? keys.length === 0
      ? `Sorted by ${
        names(request.sort.map((s) => s.column))
      }; rows that are equal there have no fixed order (the table has no primary key).`
      : `Sorted by ${names(request.sort.map((s) => s.column))}, then by the primary key.`
    : keys.length === 0
    ? "Unordered: this table has no primary key, so the database returns rows in no fixed order and a row can move between pages. Click a column header to sort."
    : `Ordered by the primary key (${names(keys)}).`
  return { sort, order }
}

/**
 * The grid's state as a browse query; the grid reads it and "Open in console" writes it. The filter bar's rows are
 * joined by All/Any; the any-column search and the raw WHERE condition (checked first) are each ANDed to them.
 */
const browseQuery = (request: UiBrowseRequest, columns: ReadonlyArray<UiColumn>, dialect: SqlDialect) =>
  Effect.gen(function*() {
    const raw = request.raw?.trim() ?? ""
    const refusal = raw === "" ? undefined : rawWhereRefusal(raw, dialect)
    if (refusal !== undefined) return yield* new UiError({ message: refusal })
    const rows = yield* sqlFilters(request)
    const search = request.search ?? ""
    const extra: Array<GridFilter> = [
      ...(search === ""
        ? []
        : [
          {
            column: "",
            operator: "any_column",
            columns: columns.filter(searchable).map((c) => c.name),
            value: search
          } as const
        ]),
      ...(raw === "" ? [] : [{ column: "", operator: "raw_where", value: raw } as const])
    ]
    // Match Any applies to the rows among themselves; the search box and the WHERE condition narrow that further
    const anyOf = extra.length > 0 && request.logic === "or" && rows.length > 1
    const logic = extra.length === 0 ? request.logic : "and"
    const filters: ReadonlyArray<GridFilter> = anyOf
      ? [{ column: "", operator: "any_of", filters: rows }, ...extra]
      : [...rows, ...extra]
    const query: GridQuery = {
      filters,
      logic,
      sort: pageOrder(request, columns).sort,
      limit: request.limit,
      offset: request.offset
    }
    return query
  })

/** The statement that gives exactly the grid's rows, for the console. */
export const sqlPageText = (driver: DatabaseDriver, table: string, request: UiBrowseRequest, namespace?: Namespace) =>
  Effect.gen(function*() {
    const structure = yield* sqlStructure(driver, table, namespace)
    const query = yield* browseQuery(request, structure.columns, driver.dialect)
    return yield* driver.browseText(table, query, namespace)
  })

/** The grid's filters, search and order as the driver's query (D-92: a table export keeps what the grid shows). */
export const sqlGridQuery = (driver: DatabaseDriver, table: string, request: UiBrowseRequest) =>
  Effect.flatMap(sqlStructure(driver, table), (structure) => browseQuery(request, structure.columns, driver.dialect))

export const sqlPage = (
  driver: DatabaseDriver,
  table: string,
  request: UiBrowseRequest,
  limits?: AnswerLimits,
  namespace?: Namespace
) =>
  Effect.gen(function*() {
    const structure = yield* sqlStructure(driver, table, namespace)
    const query = yield* browseQuery(request, structure.columns, driver.dialect)
    const [result, count] = yield* Effect.all([
      driver.browse(table, query, namespace, limits),
      request.count === false
        ? Effect.succeed(undefined)
        : driver.count(table, query.filters ?? [], query.logic ?? "and", namespace)
    ], { concurrency: 2 })
    const byName = new Map(structure.columns.map((column) => [column.name, column]))
    const page: UiPage = {
      columns: result.columns.map((name) =>
        byName.get(name) ??
          { name, type: "", isPrimaryKey: false, isReadOnly: true, nullable: true, sortable: true, sortNote: null }
      ),
      rows: result.rows,
      total: count?.row_count ?? null,
      notes: [
        ...(count?.is_approximate === true ? ["The total is approximate."] : []),
        ...plainNotes(result.status_message)
      ],
      order: pageOrder(request, structure.columns).order,
      ...editability(table, structure.columns)
    }
    return page
  })

/** The database's check of a statement before the console asks about it: its own refusal, in plain words. */
export interface ConsolePreflight {
  readonly check: Effect.Effect<void, unknown>
  readonly preview: Effect.Effect<ApprovalPreview>
}

const CHECK_SUFFIX = / \(checked by the database before asking for approval; nothing ran\)$/

/**
 * The SQL console: a statement that is not a plain read is first checked by the database (so a typo is a syntax error
 * at once, not a question), then dry-run and rolled back as an MCP write is, and waits for the user's confirmation.
 */
export const sqlConsole = (
  driver: DatabaseDriver,
  text: string,
  confirmed: boolean,
  limits: {
    readonly maxRows: number
    readonly timeoutSeconds: number
    readonly answer?: AnswerLimits
    readonly namespace?: Namespace
  },
  preflight?: ConsolePreflight
) =>
  Effect.gen(function*() {
    if (text.trim() === "") return yield* new UiError({ message: "Type a statement first." })
    const verdict = classifyStatement(text, driver.dialect)
    if (verdict.tier !== "safe" && !confirmed) {
      const preview = preflight === undefined ? undefined : yield* Effect.zipRight(
        Effect.mapError(preflight.check, (error) =>
          new UiError({
            message: `${uiMessage(error).replace(CHECK_SUFFIX, "")} (checked by the database; nothing ran)`
          })),
        preflight.preview
      )
      const reason = verdict.approvalHint ?? verdict.reason ??
        (verdict.tier === "destructive" ? "This statement drops or deletes data" : "This statement changes data")
      const result: UiConsoleResult = {
        _tag: "NeedsConfirmation",
        tier: verdict.tier,
        reason: reason.replace(/[.\s]+$/, ""),
        ...(preview === undefined ? {} : { preview })
      }
      return result
    }
    const started = Date.now()
    const set = yield* driver.execute(text, {
      columnTypes: true,
      maxRows: limits.maxRows,
      timeoutSeconds: limits.timeoutSeconds,
      access: verdict.tier === "safe" && !verdict.reachesFilesOrCode ? "readonly" : "readwrite",
      ...(limits.answer === undefined ? {} : { limits: limits.answer }),
      ...limits.namespace
    })
    const result: UiConsoleResult = {
      _tag: "Grid",
      columns: set.columns,
      ...(set.columnTypes === undefined || set.columnTypes.length !== set.columns.length
        ? {}
        : { columnTypes: set.columnTypes }),
      rows: set.rows,
      rowsAffected: set.rows_affected,
      timeMs: set.execution_time_ms || Date.now() - started,
      message: plainConsoleNote(set.status_message, set.row_count, set.is_truncated),
      ...(changesSchema(text) ? { schemaChanged: true } : {})
    }
    return result
  })
