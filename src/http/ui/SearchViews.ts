import { Effect, Either } from "effect"
import { AnswerBudget, type AnswerLimits, DEFAULT_ANSWER_LIMITS, SEARCH_HINTS } from "../../domain/AnswerBudget.ts"
import { capJsonResponse } from "../../search/SearchTools.ts"
import type { SearchColumn } from "../../domain/SearchGrid.ts"
import { caseControlLabel, type FilterOperator } from "../../domain/SearchFilter.ts"
import type {
  CellMap,
  UiBrowseRequest,
  UiColumn,
  UiConsoleResult,
  UiEditRequest,
  UiEditResult,
  UiPage,
  UiStructure,
  UiTableList
} from "../../domain/UiSchemas.ts"
import { UiError } from "../../domain/UiSchemas.ts"
import { describeCollection, pageConsoleText, readPage, type ReadPageRequest } from "../../search/SearchBrowse.ts"
import type { SearchClient } from "../../search/SearchClient.ts"
import { classifyConsoleRequest, parseConsoleInput } from "../../search/ConsoleRequest.ts"
import { runConsoleRequest } from "../../search/SearchConsole.ts"
import { changedCells, deleteDocument, insertDocument, updateDocument } from "../../search/SearchEdits.ts"
import { listCollections } from "../../search/SearchServer.ts"
import { uiMessage } from "./UiErrors.ts"
import { plainNotes } from "./PlainNotes.ts"

const sortNote = (column: SearchColumn): string | null =>
  column.isSortable
    ? null
    : column.name === "id"
    ? "Typesense cannot sort by id."
    : `Not sortable: the collection schema does not mark '${column.name}' with sort: true.`

export const uiColumn = (column: SearchColumn): UiColumn => ({
  name: column.name,
  type: column.type,
  isPrimaryKey: column.isPrimaryKey,
  isReadOnly: column.isReadOnly,
  nullable: column.isNullable,
  sortable: column.isSortable,
  sortNote: sortNote(column)
})

export const searchTables = (client: SearchClient) =>
  Effect.map(listCollections(client), (listing): UiTableList => ({
    tables: [...listing.collections]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((collection) => ({ name: collection.name, kind: "collection", rowCount: collection.num_documents })),
    note: listing.unavailableReason ??
      (listing.collections.length === 0 ? "This cluster has no collections yet." : null)
  }))

export const searchStructure = (client: SearchClient, collection: string) =>
  Effect.map(describeCollection(client, collection), ({ columns, schema }): UiStructure => ({
    columns: columns.map(uiColumn),
    indexes: [],
    foreignKeys: [],
    definition: JSON.stringify(schema, null, 2),
    readOnly: true
  }))

/** The grid's state as a page read; the grid reads it and "Open in console" writes it (D-87). */
const readRequest = (collection: string, request: UiBrowseRequest): Effect.Effect<ReadPageRequest, UiError> =>
  request.caseSensitive
    ? Effect.fail(new UiError({ message: caseControlLabel }))
    : Effect.succeed({
      collection,
      offset: request.offset,
      limit: request.limit,
      filter: {
        filters: request.filters.map((row) => ({
          column: row.column,
          operator: row.operator as FilterOperator,
          ...(row.value === undefined ? {} : { value: row.value }),
          ...(row.secondValue === undefined ? {} : { second_value: row.secondValue })
        })),
        logic: request.logic,
        ...(request.raw === undefined || request.raw.trim() === "" ? {} : { raw: request.raw })
      },
      sort: request.sort,
      ...(request.search === undefined || request.search.trim() === "" ? {} : { query: request.search })
    })

/** D-87: the `multi_search` request that gives exactly the grid's documents, for the console. */
export const searchPageText = (client: SearchClient, collection: string, request: UiBrowseRequest) =>
  Effect.flatMap(readRequest(collection, request), (read) => pageConsoleText(client, read))

export const searchPage = (
  client: SearchClient,
  collection: string,
  request: UiBrowseRequest,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS
) =>
  Effect.gen(function*() {
    const page = yield* readPage(client, yield* readRequest(collection, request))
    // D-71: the grid's page holds fields cut at limits.maxCellBytes and stops at limits.maxAnswerBytes
    const budget = new AnswerBudget(request.limit, limits, SEARCH_HINTS)
    budget.header(page.columns.map((column) => column.name))
    for (const row of page.rows) if (!budget.add(row)) break
    const capNote = budget.note()
    const result: UiPage = {
      columns: page.columns.map(uiColumn),
      rows: budget.rows,
      total: page.found,
      notes: [
        ...plainNotes(capNote),
        ...page.droppedSorts.map((dropped) =>
          dropped.reason === "too_many_sorts"
            ? `Sort on ${dropped.column} dropped: Typesense sorts by at most three fields.`
            : `Sort on ${dropped.column} dropped: the field is not sortable.`
        ),
        ...(page.filterBy === undefined ? [] : [`filter_by: ${page.filterBy}`])
      ],
      editable: true
    }
    return result
  })

/** Saves the grid's pending changes, one REST call per document (doc 2 §8); each failure is reported by row. */
export const searchSave = (client: SearchClient, collection: string, edits: UiEditRequest) =>
  Effect.gen(function*() {
    const { columns } = yield* describeCollection(client, collection)
    const failures: Array<UiEditResult["failures"][number]> = []
    let applied = 0
    const attempt = (row: string, effect: Effect.Effect<unknown, unknown>) =>
      Effect.match(effect, {
        onFailure: (error) => failures.push({ row, message: uiMessage(error) }),
        onSuccess: () => applied++
      })
    for (const cells of edits.inserts) {
      yield* attempt(`new row ${String(cells.id ?? "")}`.trim(), insertDocument(client, collection, cells, columns))
    }
    for (const update of edits.updates) {
      const changes: CellMap = changedCells(update.original, update.changes) as CellMap
      if (Object.keys(changes).length > 0) {
        yield* attempt(update.id, updateDocument(client, collection, update.id, changes, columns))
      }
    }
    for (const id of edits.deletes) {
      yield* attempt(id, deleteDocument(client, collection, id))
    }
    const result: UiEditResult = { applied, failures }
    return result
  })

/** The request console (doc 2 §4.3); a write or a DELETE waits for the user's confirmation first. */
export const searchConsole = (
  client: SearchClient,
  text: string,
  confirmed: boolean,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS
) =>
  Effect.gen(function*() {
    const parsed = parseConsoleInput(text)
    if (Either.isLeft(parsed)) return yield* new UiError({ message: parsed.left.message })
    const request = parsed.right
    const tier = classifyConsoleRequest(request.method, request.path)
    if (tier !== "safe" && !confirmed) {
      const result: UiConsoleResult = {
        _tag: "NeedsConfirmation",
        tier,
        reason: tier === "destructive"
          ? `${request.method} ${request.path} deletes data on the engine.`
          : `${request.method} ${request.path} changes data on the engine.`
      }
      return result
    }
    const started = Date.now()
    const output = yield* runConsoleRequest(client, request)
    const timeMs = Date.now() - started
    if (output._tag === "Json") {
      const result: UiConsoleResult = { _tag: "Json", text: capJsonResponse(output.text, limits).text, timeMs }
      return result
    }
    const budget = new AnswerBudget(Number.MAX_SAFE_INTEGER, limits, SEARCH_HINTS)
    const columns = budget.header(output.columns)
    for (const row of output.rows) if (!budget.add(row)) break
    const result: UiConsoleResult = {
      _tag: "Grid",
      columns,
      rows: budget.rows,
      rowsAffected: 0,
      timeMs,
      message: budget.note() ?? null
    }
    return result
  })
