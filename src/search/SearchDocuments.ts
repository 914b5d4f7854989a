import { Effect, Schema } from "effect"
import { ToolFailure } from "../domain/ToolErrors.ts"
import { describeCollection, multiSearch } from "./SearchBrowse.ts"
import type { SearchParams } from "./SearchBrowse.ts"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import { engineMessage, enginePath } from "./SearchClient.ts"
import type { CallOptions, SearchClient } from "./SearchClient.ts"
import { typeCellValue } from "./SearchEdits.ts"
import { maxHitsPerSearch } from "./ReadPlan.ts"
import { toToolFailure } from "./SearchTools.ts"
import { capDocuments } from "./DocumentCaps.ts"
import { type AnswerLimits, DEFAULT_ANSWER_LIMITS } from "../domain/AnswerBudget.ts"
import type { AppliedRule } from "../domain/AnswerGate.ts"
import type { MaskingRuleSpec } from "../domain/ColumnGuard.ts"
import { guardDocument } from "../domain/DocumentGuard.ts"
import { aliasesOf } from "./SearchGuard.ts"

/** The arguments of `search_documents` (D-21); `filter_by` and `sort_by` are engine syntax. */
export interface SearchDocumentsRequest {
  readonly collection: string
  readonly q: string
  readonly query_by?: string | undefined
  readonly filter_by?: string | undefined
  readonly sort_by?: string | undefined
  readonly per_page?: number | undefined
  readonly page?: number | undefined
  readonly infix?: string | undefined
}

/**
 * `search_documents`: one search sent through `POST /multi_search` (never the GET search, whose query string is
 * limited, typesense-reference §7.0); `per_page` above 250 is refused before sending (doc 2 §8). Fields longer than
 * `limits.maxCellBytes` are cut and hits stop at `limits.maxAnswerBytes`; `truncated` and `status_message` say so.
 */
export const searchDocuments = Effect.fn("SearchDocuments.search")(function*(
  client: SearchClient,
  request: SearchDocumentsRequest,
  options?: CallOptions,
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
  rules: ReadonlyArray<MaskingRuleSpec> = []
) {
  if (request.per_page !== undefined && (request.per_page < 0 || request.per_page > maxHitsPerSearch)) {
    return yield* new ToolFailure({
      code: "invalid_argument",
      detail: `per_page must be from 0 to 250: Typesense returns at most 250 hits per search; use page for more.`
    })
  }
  const search: SearchParams = { collection: request.collection, q: request.q }
  for (const key of ["query_by", "filter_by", "sort_by", "per_page", "page", "infix"] as const) {
    const value = request[key]
    if (value !== undefined) search[key] = value
  }
  const [result] = yield* multiSearch(client, [search], options).pipe(Effect.mapError(toToolFailure))
  // D-65: the collection's masking rules (under its alias's target too) before the answer is capped.
  const applied: Array<AppliedRule> = []
  const aliases = rules.length === 0 ? new Map<string, string>() : yield* aliasesOf(client, options)
  const names = [request.collection, ...(aliases.has(request.collection) ? [aliases.get(request.collection)!] : [])]
  const documents = (result?.hits ?? []).map((hit) =>
    names.reduce(
      (document, name) => (rules.length === 0 ? document : guardDocument(document, name, rules, applied)),
      hit.document
    )
  )
  const capped = capDocuments(documents, limits)
  return {
    found: result?.found ?? 0,
    hits: capped.documents,
    search_time_ms: result?.search_time_ms ?? 0,
    ...(capped.note === undefined ? {} : { truncated: true, status_message: capped.note }),
    ...(applied.length === 0 ? {} : { applied })
  }
})

const ImportLine = Schema.parseJson(Schema.Struct({ success: Schema.Boolean, error: Schema.optional(Schema.String) }))

/**
 * `insert_rows` on a search collection (D-21): one import call of JSON lines, values typed from the
 * schema (S4-e); each result line is checked, so a partial import names the rows that failed and why.
 */
export const searchInsertRows = Effect.fn("SearchDocuments.insertRows")(function*(
  client: SearchClient,
  collection: string,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>,
  options?: CallOptions
) {
  const { columns: known } = yield* describeCollection(client, collection, options).pipe(Effect.mapError(toToolFailure))
  const types = new Map(known.map((column) => [column.name, column.type]))
  const lines = rows.map((row) =>
    JSON.stringify(Object.fromEntries(
      columns.flatMap((name, index) => {
        const value = row[index]
        return value === null || value === undefined ? [] : [[name, typeCellValue(value, types.get(name))]]
      })
    ))
  )
  const response = yield* client.send(
    "POST",
    `${enginePath("collections", collection, "documents", "import")}?action=create`,
    { _tag: "Text", text: lines.join("\n"), contentType: "text/plain" },
    options
  ).pipe(Effect.mapError(toToolFailure))
  if (response.status < 200 || response.status > 299) {
    return yield* toToolFailure(
      new SearchEngineError({ reason: "Status", status: response.status, message: engineMessage(response) })
    )
  }
  const results = response.body.split("\n").filter((line) => line.trim() !== "")
  const failed_rows = yield* Effect.forEach(results, (line, index) =>
    Schema.decodeUnknown(ImportLine)(line).pipe(
      Effect.map((result) => (result.success ? [] : [{ index, error: result.error ?? "the engine refused this row" }])),
      Effect.orElseSucceed(() => [{ index, error: `unreadable import result: ${line}` }])
    )).pipe(Effect.map((lists) => lists.flat()))
  return { rows_affected: rows.length - failed_rows.length, failed_rows }
})
