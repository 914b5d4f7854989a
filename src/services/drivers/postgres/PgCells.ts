// PostgreSQL values arrive as text (the session is started with DateStyle ISO and bytea_output hex, PgPools.ts);
// this turns them into result-set cells by the column's type OID, without pg-types' per-value parsing.
import type { Cell } from "../../../domain/AnswerBudget.ts"

const BOOL = 16
const INT8 = 20
const INT2 = 21
const INT4 = 23
const OID = 26
const FLOAT4 = 700
const FLOAT8 = 701
const JSON_OID = 114

const NUMBERS = new Set([INT2, INT4, OID, FLOAT4, FLOAT8])
const SAFE_DIGITS = 15

/** 64-bit integers beyond the safe range stay their decimal text (D-20), as `toCell` does. */
const int8Cell = (text: string): Cell => {
  const digits = text.charCodeAt(0) === 45 ? text.length - 1 : text.length
  if (digits <= SAFE_DIGITS) return Number(text)
  const value = BigInt(text)
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : text
}

/**
 * A cell from a value's text and its column's type OID: booleans and the 2/4-byte integers, oids and floats become
 * JSON numbers (non-finite floats stay "NaN"/"Infinity"/"-Infinity", as `toCell` has it), int8 within the safe
 * range a number and beyond it its text; everything else (numeric, json/jsonb, dates and times as PostgreSQL
 * prints them, bytea as `\x…` hex, arrays as `{…}`) is PostgreSQL's own text. The answer's caps apply afterwards.
 */
export const cellOf = (text: string | null, typeOid: number): Cell => {
  if (text === null) return null
  if (typeOid === BOOL) return text === "t"
  if (typeOid === INT8) return int8Cell(text)
  if (NUMBERS.has(typeOid)) {
    const value = Number(text)
    return Number.isFinite(value) ? value : text
  }
  return text
}

/** A catalog value: like a cell, except that json is parsed (the catalog queries return arrays as json). */
export const catalogValueOf = (text: string | null, typeOid: number): unknown =>
  typeOid === JSON_OID && text !== null ? JSON.parse(text) : cellOf(text, typeOid)

/** Parameters go as text: booleans and numbers as PostgreSQL reads them, structured values as JSON. */
export const parameterText = (value: unknown): string | null => {
  if (value === null || value === undefined) return null
  if (typeof value === "string") return value
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value)
  return JSON.stringify(value)
}
