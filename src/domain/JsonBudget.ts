import { type AnswerLimits, ENVELOPE_BYTES } from "./AnswerBudget.ts"
import { capCell, cutMarker, jsonPrefix, jsonStringBytes, utf8Length } from "./SqlCell.ts"

/**
 * Byte caps on answers that are not result sets (schema listings, descriptions, DDL, history, prompts, search
 * documents): any JSON value is cut to `limits.maxAnswerBytes` and its texts to `limits.maxCellBytes`, and the answer
 * says what was cut. Free of `node:` imports (domain).
 */

type JsonValue = string | number | boolean | null | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

const isObject = (value: unknown): value is Record<string, JsonValue> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Exact UTF-8 bytes of `JSON.stringify(value)`; `undefined` members are skipped as JSON.stringify does. */
export const jsonBytes = (value: unknown): number => {
  if (value === null) return 4
  if (typeof value === "string") return jsonStringBytes(value)
  if (typeof value === "number") return Number.isFinite(value) ? String(value).length : 4
  if (typeof value === "boolean") return value ? 4 : 5
  if (Array.isArray(value)) {
    let bytes = 1 + Math.max(1, value.length)
    for (const item of value) bytes += item === undefined ? 4 : jsonBytes(item)
    return bytes
  }
  if (isObject(value)) {
    let bytes = 1
    let members = 0
    for (const key of Object.keys(value)) {
      const inner = value[key]
      if (inner === undefined || typeof inner === "function") continue
      bytes += jsonStringBytes(key) + 1 + jsonBytes(inner)
      members++
    }
    return bytes + Math.max(1, members)
  }
  return 4
}

/** An array that lost its tail to the answer cap: where it is in the answer and how much of it is shown. */
export interface DroppedItems {
  readonly path: string
  readonly kept: number
  readonly total: number
}

export interface CappedJson<A> {
  readonly value: A
  /** Texts cut at `maxCellBytes` by this call. */
  readonly cutTexts: number
  readonly dropped: ReadonlyArray<DroppedItems>
  readonly bytes: number
}

interface Walk {
  readonly maxCellBytes: number
  readonly readPart: string
  cutTexts: number
  readonly dropped: Array<DroppedItems>
}

/** Walks a value within `limit` bytes: texts are cut at the cell cap, arrays keep the items that fit. */
const walk = (
  value: unknown,
  limit: number,
  path: string,
  state: Walk
): { readonly value: unknown; readonly bytes: number } => {
  if (typeof value === "string") {
    const capped = capCell(value, state.maxCellBytes, state.readPart)
    if (capped.cutNow === true) state.cutTexts++
    return { value: capped.cell, bytes: capped.bytes }
  }
  if (Array.isArray(value)) {
    const items: Array<unknown> = []
    let bytes = 2
    for (const [index, item] of value.entries()) {
      const comma = items.length > 0 ? 1 : 0
      const [cutBefore, droppedBefore] = [state.cutTexts, state.dropped.length]
      const inner = walk(item === undefined ? null : item, limit - bytes - comma, `${path}[${index}]`, state)
      if (bytes + comma + inner.bytes > limit) {
        state.cutTexts = cutBefore
        state.dropped.length = droppedBefore
        state.dropped.push({ path, kept: items.length, total: value.length })
        break
      }
      items.push(inner.value)
      bytes += comma + inner.bytes
    }
    return { value: items, bytes }
  }
  if (isObject(value)) {
    const result: Record<string, unknown> = {}
    let bytes = 2
    for (const key of Object.keys(value)) {
      const inner = value[key]
      if (inner === undefined || typeof inner === "function") continue
      const head = (bytes > 2 ? 1 : 0) + jsonStringBytes(key) + 1
      const walked = walk(inner, limit - bytes - head, path === "" ? key : `${path}.${key}`, state)
      // A key "__proto__" (JSON.parse makes it an own key) must stay a key, not set the copy's prototype.
      Object.defineProperty(result, key, { value: walked.value, enumerable: true, writable: true, configurable: true })
      bytes += head + walked.bytes
    }
    return { value: result, bytes }
  }
  return { value, bytes: jsonBytes(value) }
}

/**
 * Caps any JSON value under `limits` (less `reserve` bytes kept for fields the caller adds): texts longer than
 * `maxCellBytes` are cut with dbdesk's marker, and an array that would pass the answer cap keeps only the items that
 * fit. A value that still does not fit (an object of many long texts) is walked again with a smaller text cap.
 */
export const capJson = <A>(
  value: A,
  limits: AnswerLimits,
  readPart: string,
  reserve = ENVELOPE_BYTES
): CappedJson<A> => {
  const limit = Math.max(0, limits.maxAnswerBytes - reserve)
  let maxCellBytes = limits.maxCellBytes
  for (;;) {
    const state: Walk = { maxCellBytes, readPart, cutTexts: 0, dropped: [] }
    const walked = walk(value, limit, "", state)
    if (walked.bytes <= limit || maxCellBytes <= 16) {
      return { value: walked.value as A, cutTexts: state.cutTexts, dropped: state.dropped, bytes: walked.bytes }
    }
    maxCellBytes = Math.floor(maxCellBytes / 4)
  }
}

/** The `status_message` of an answer cut by {@link capJson}; undefined when nothing was cut. */
export const cappedJsonNote = (
  capped: Pick<CappedJson<unknown>, "cutTexts" | "dropped">,
  limits: AnswerLimits,
  hints: { readonly items: string; readonly texts: string }
): string | undefined => {
  const parts: Array<string> = []
  if (capped.dropped.length > 0) {
    const lists = capped.dropped.slice(0, 3).map((drop) =>
      `${drop.path === "" ? "the list" : drop.path} shows ${drop.kept} of ${drop.total} items`
    )
    parts.push(
      `the answer reached limits.maxAnswerBytes (${limits.maxAnswerBytes} bytes): ${lists.join(", ")}; ${hints.items}`
    )
  }
  if (capped.cutTexts > 0) {
    parts.push(
      `${capped.cutTexts} text${
        capped.cutTexts === 1 ? " was" : "s were"
      } cut at limits.maxCellBytes (${limits.maxCellBytes} bytes); ${hints.texts}`
    )
  }
  return parts.length === 0 ? undefined : parts.join("; ")
}

/**
 * Caps an answer object and, when anything was cut, says so in it: `truncated: true` and a `status_message` naming
 * the setting and how to ask for less (what a result set says in `is_truncated` / `status_message`).
 */
export const capAnswerObject = <A extends Record<string, unknown>>(
  answer: A,
  limits: AnswerLimits,
  hints: { readonly items: string; readonly texts: string; readonly readPart: string }
): A => {
  const capped = capJson(answer, limits, hints.readPart)
  if (capped.bytes > limits.maxAnswerBytes - ENVELOPE_BYTES) {
    // only an object of very many or very long keys gets here: nothing of it fits, and the answer says so
    return {
      truncated: true,
      status_message:
        `the answer is larger than limits.maxAnswerBytes (${limits.maxAnswerBytes} bytes) even with every list and text cut; ${hints.items}`
    } as unknown as A
  }
  const note = cappedJsonNote(capped, limits, hints)
  if (note === undefined) return answer
  const previous = typeof capped.value["status_message"] === "string" ? `${capped.value["status_message"]}; ` : ""
  return { ...capped.value, truncated: true, status_message: `${previous}${note}` }
}

/**
 * One text that is a whole answer (a prompt, a search engine's JSON response): cut when its JSON would pass
 * `limits.maxAnswerBytes` (less `reserve` for the fields around it), ending with dbdesk's marker.
 */
export const capAnswerText = (
  text: string,
  limits: AnswerLimits,
  readPart: string,
  reserve = 2 * ENVELOPE_BYTES
): { readonly text: string; readonly cut: boolean } => {
  const room = Math.max(0, limits.maxAnswerBytes - reserve)
  if (jsonStringBytes(text) <= room) return { text, cut: false }
  const kept = jsonPrefix(text, room)
  return { text: kept + cutMarker(utf8Length(text), utf8Length(kept), readPart), cut: true }
}
