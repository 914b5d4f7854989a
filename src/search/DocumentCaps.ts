import { type AnswerLimits, ENVELOPE_BYTES, SEARCH_HINTS } from "../domain/AnswerBudget.ts"
import { jsonBytes } from "../domain/JsonBudget.ts"
import { capCell } from "../domain/SqlCell.ts"

export interface CappedDocuments {
  readonly documents: ReadonlyArray<Record<string, unknown>>
  /** Why documents or fields are missing or cut; undefined when nothing was. */
  readonly note: string | undefined
}

/**
 * One document with every field held to `maxCellBytes`, as a grid cell is (S2.2-d): a longer text is cut with dbdesk's
 * marker, and an array or object field whose JSON is longer becomes its JSON text, cut the same way.
 */
const capDocument = (document: Record<string, unknown>, maxCellBytes: number) => {
  let cut = 0
  const fields: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(document)) {
    const text = typeof value === "string"
      ? value
      : typeof value === "object" && value !== null && jsonBytes(value) > maxCellBytes
      ? JSON.stringify(value)
      : undefined
    if (text === undefined) {
      fields[name] = value
      continue
    }
    const capped = capCell(text, maxCellBytes, SEARCH_HINTS.readPart)
    if (capped.cutNow === true) cut++
    fields[name] = capped.cell
  }
  return { document: fields, cut, bytes: jsonBytes(fields) }
}

/**
 * The hits of one search within the answer caps (settings `limits.maxCellBytes`, `limits.maxAnswerBytes`): fields cut
 * per {@link capDocument}, and documents kept while the answer has room.
 */
export const capDocuments = (
  documents: ReadonlyArray<Record<string, unknown>>,
  limits: AnswerLimits
): CappedDocuments => {
  const room = limits.maxAnswerBytes - ENVELOPE_BYTES
  const kept: Array<Record<string, unknown>> = []
  let bytes = 2
  let cut = 0
  for (const document of documents) {
    const capped = capDocument(document, limits.maxCellBytes)
    if (bytes + capped.bytes + 1 > room) break
    kept.push(capped.document)
    bytes += capped.bytes + 1
    cut += capped.cut
  }
  const parts: Array<string> = []
  if (kept.length < documents.length) {
    parts.push(
      `showing ${kept.length} of the ${documents.length} hits of this page: the answer reached limits.maxAnswerBytes (${limits.maxAnswerBytes} bytes); ${SEARCH_HINTS.bytes}`
    )
  }
  if (cut > 0) {
    parts.push(
      `${cut} field${
        cut === 1 ? " was" : "s were"
      } cut at limits.maxCellBytes (${limits.maxCellBytes} bytes); ${SEARCH_HINTS.cells}`
    )
  }
  return { documents: kept, note: parts.length === 0 ? undefined : parts.join("; ") }
}
