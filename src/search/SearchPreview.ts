import { Effect, Either } from "effect"
import type { ApprovalPreview, PreviewAction, PreviewRow } from "../domain/ApprovalPreview.ts"
import { PREVIEW_ROWS } from "../domain/PreviewPlan.ts"
import type { CellValue } from "../domain/ResultSet.ts"
import { SearchEngineError } from "../domain/SearchErrors.ts"
import { toCell } from "../domain/SqlCell.ts"
import { type ConsoleRequest, parseConsoleInput } from "./ConsoleRequest.ts"
import { flattenDocument } from "./Flatten.ts"
import { multiSearch } from "./SearchBrowse.ts"
import { type CallOptions, enginePath, type SearchClient } from "./SearchClient.ts"

type Document = Record<string, unknown>

const isDocument = (value: unknown): value is Document =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What a console write does to documents, read from its method and path (typesense-reference §1.2). */
type Edit =
  | { readonly kind: "byId"; readonly collection: string; readonly id: string; readonly action: "change" | "delete" }
  | {
    readonly kind: "byFilter"
    readonly collection: string
    readonly filterBy: string
    readonly action: "change" | "delete"
  }
  | { readonly kind: "create"; readonly collection: string; readonly mode: string }
  | { readonly kind: "import"; readonly collection: string }
  | { readonly kind: "collection"; readonly collection: string }
  | { readonly kind: "other" }

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const editOf = (request: ConsoleRequest): Edit => {
  const [pathPart = "", query = ""] = request.path.split("?", 2)
  const params = new URLSearchParams(query)
  const segments = pathPart.split("/").filter((segment) => segment !== "").map(decode)
  if (segments[0] !== "collections" || segments[1] === undefined) return { kind: "other" }
  const collection = segments[1]
  if (segments[2] !== "documents") return segments.length === 2 ? { kind: "collection", collection } : { kind: "other" }
  const id = segments[3]
  if (id === "import" && segments.length === 4 && request.method === "POST") return { kind: "import", collection }
  if (id !== undefined && segments.length === 4 && (request.method === "PATCH" || request.method === "DELETE")) {
    return { kind: "byId", collection, id, action: request.method === "PATCH" ? "change" : "delete" }
  }
  const filterBy = params.get("filter_by")
  if (id === undefined && filterBy !== null && (request.method === "PATCH" || request.method === "DELETE")) {
    return { kind: "byFilter", collection, filterBy, action: request.method === "PATCH" ? "change" : "delete" }
  }
  if (id === undefined && request.method === "POST") {
    return { kind: "create", collection, mode: params.get("action") ?? "create" }
  }
  return { kind: "other" }
}

const parsed = (text: string) =>
  Either.match(parseConsoleInput(text), {
    onLeft: (refused) =>
      Effect.fail(new SearchEngineError({ reason: "Status", status: 400, message: refused.message })),
    onRight: (request) => Effect.succeed(request)
  })

const getDocument = (client: SearchClient, collection: string, id: string, options?: CallOptions) =>
  Effect.map(
    client.call("GET", enginePath("collections", collection, "documents", id), undefined, options),
    (json) => (isDocument(json) ? json : {})
  )

const matching = (client: SearchClient, collection: string, filterBy: string, perPage: number, options?: CallOptions) =>
  Effect.map(
    multiSearch(client, [{ collection, q: "*", filter_by: filterBy, per_page: perPage }], options),
    (results) => ({
      found: results[0]?.found ?? 0,
      documents: (results[0]?.hits ?? []).map((hit) => hit.document)
    })
  )

/**
 * D-68 for the search engine: the request is validated by the engine without changing anything — the
 * document it names is read, its filter is run as a count, the collection it writes to is read — so a request that
 * names a missing collection or document, or holds a bad filter, fails with the engine's own message.
 */
export const checkConsoleWrite = Effect.fn("SearchPreview.check")(
  function*(client: SearchClient, text: string, options?: CallOptions) {
    const edit = editOf(yield* parsed(text))
    switch (edit.kind) {
      case "byId":
        return yield* Effect.asVoid(getDocument(client, edit.collection, edit.id, options))
      case "byFilter":
        return yield* Effect.asVoid(matching(client, edit.collection, edit.filterBy, 0, options))
      case "create":
      case "import":
        return yield* Effect.asVoid(client.getCollection(edit.collection, options))
      default:
        return
    }
  }
)

const merged = (
  document: Document,
  patch: unknown
): Document => (isDocument(patch) ? { ...document, ...patch } : document)

const changes = (
  action: PreviewAction,
  collection: string,
  count: number,
  pairs: ReadonlyArray<{ before: Document | null; after: Document | null }>
): ApprovalPreview => {
  const flat = pairs.slice(0, PREVIEW_ROWS).map(({ after, before }) => ({
    before: before === null ? null : flattenDocument(before),
    after: after === null ? null : flattenDocument(after)
  }))
  const keys = new Set<string>()
  for (const pair of flat) {
    for (const doc of [pair.before, pair.after]) {
      if (doc !== null) Object.keys(doc).forEach((key) => keys.add(key))
    }
  }
  const columns = [...(keys.has("id") ? ["id"] : []), ...[...keys].filter((key) => key !== "id").sort()]
  const cells = (
    doc: Document | null
  ): ReadonlyArray<CellValue> | null => (doc === null ? null : columns.map((column) => toCell(doc[column] ?? null)))
  const rows = flat.map((pair): PreviewRow => ({ before: cells(pair.before), after: cells(pair.after) }))
  return {
    _tag: "Changes",
    action,
    target: collection,
    unit: "document",
    count,
    columns,
    rows,
    note: "counted through the same filter; nothing was changed"
  }
}

/**
 * D-69 for the search engine, which has no transactions: the documents a write would touch are counted
 * through the same filter (or read by id) and shown before → after; nothing is written. Collection, alias, key and
 * other configuration requests get no preview.
 */
export const previewConsoleWrite = Effect.fn("SearchPreview.preview")(
  function*(client: SearchClient, text: string, options?: CallOptions) {
    const request = yield* parsed(text)
    const edit = editOf(request)
    const body = request.body?._tag === "Json" ? request.body.value : undefined
    switch (edit.kind) {
      case "byId": {
        const document = yield* getDocument(client, edit.collection, edit.id, options)
        return changes(edit.action, edit.collection, 1, [{
          before: document,
          after: edit.action === "delete" ? null : merged(document, body)
        }])
      }
      case "byFilter": {
        const { documents, found } = yield* matching(client, edit.collection, edit.filterBy, PREVIEW_ROWS, options)
        return changes(
          edit.action,
          edit.collection,
          found,
          documents.map((document) => ({
            before: document,
            after: edit.action === "delete" ? null : merged(document, body)
          }))
        )
      }
      case "create": {
        if (!isDocument(body)) {
          return { _tag: "NoPreview", reason: "the request body is not one document" } satisfies ApprovalPreview
        }
        const id = typeof body["id"] === "string" ? body["id"] : undefined
        const existing = id === undefined || edit.mode === "create"
          ? undefined
          : yield* getDocument(client, edit.collection, id, options).pipe(
            Effect.catchIf(
              (error) => error._tag === "SearchEngineError" && error.status === 404,
              () => Effect.succeed(undefined)
            )
          )
        if (existing === undefined) {
          return changes("insert", edit.collection, 1, [{ before: null, after: body }])
        }
        return changes("change", edit.collection, 1, [{
          before: existing,
          after: edit.mode === "upsert" ? body : merged(existing, body)
        }])
      }
      case "import": {
        const lines = request.body?._tag === "JsonLines"
          ? request.body.text.split("\n").flatMap((line) => {
            const value: unknown = JSON.parse(line)
            return isDocument(value) ? [value] : []
          })
          : Array.isArray(body)
          ? body.filter(isDocument)
          : isDocument(body)
          ? [body]
          : []
        return changes(
          "insert",
          edit.collection,
          lines.length,
          lines.map((document) => ({ before: null, after: document }))
        )
      }
      case "collection":
        return {
          _tag: "NoPreview",
          reason: "a change to a collection itself (its schema or the collection) is not dry-run"
        } satisfies ApprovalPreview
      case "other":
        return {
          _tag: "NoPreview",
          reason: "this request changes the engine's configuration (aliases, keys, synonyms…), which is not dry-run"
        } satisfies ApprovalPreview
    }
  }
)
