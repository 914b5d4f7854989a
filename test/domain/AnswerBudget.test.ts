import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  AnswerBudget,
  BROWSE_HINTS,
  capCell,
  capResultSet,
  type Cell,
  utf8Length
} from "../../src/domain/AnswerBudget.ts"
import type { ResultSet } from "../../src/domain/ResultSet.ts"
import { jsonStringBytes } from "../../src/domain/SqlCell.ts"

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8")
const jsonSize = (value: unknown) => bytesOf(JSON.stringify(value))
const MARKER = " …[cut by dbdesk: "

const anyText = FastCheck.string({ unit: "binary", maxLength: 300 })
const anyCell: FastCheck.Arbitrary<Cell | Uint8Array> = FastCheck.oneof(
  anyText,
  FastCheck.string({ unit: FastCheck.constantFrom("\u0001", "\"", "\\", "é", "😀", "\ud800", "a"), maxLength: 2000 }),
  FastCheck.double(),
  FastCheck.boolean(),
  FastCheck.constant(null),
  FastCheck.uint8Array({ maxLength: 3000 })
)

describe("AnswerBudget", () => {
  it.prop(
    "utf8Length agrees with Buffer.byteLength",
    [FastCheck.string({ unit: "binary", maxLength: 200 })],
    ([text]) => {
      expect(utf8Length(text)).toBe(bytesOf(text))
    }
  )

  it.prop("jsonStringBytes is the exact UTF-8 size of JSON.stringify", [anyText], ([text]) => {
    expect(jsonStringBytes(text)).toBe(jsonSize(text))
  })

  it.prop(
    "a cut cell keeps a prefix within the cap, never splits a character, and names the full length",
    [FastCheck.string({ unit: "binary", minLength: 1, maxLength: 400 }), FastCheck.integer({ min: 4, max: 64 })],
    ([text, cap]) => {
      const capped = capCell(text, cap)
      expect(capped.bytes).toBe(jsonSize(capped.cell))
      if (bytesOf(text) <= cap) {
        expect(capped.cell).toBe(text)
        expect(capped.cutFrom).toBeUndefined()
        return
      }
      expect(capped.cutFrom).toBe(bytesOf(text))
      const cell = capped.cell as string
      const kept = cell.slice(0, cell.lastIndexOf(MARKER))
      expect(text.startsWith(kept)).toBe(true)
      expect(bytesOf(kept)).toBeLessThanOrEqual(cap)
      expect(
        kept.length === 0 || bytesOf(text.slice(0, kept.length + 1)) > cap ||
          /[\ud800-\udbff]$/.test(text.slice(0, kept.length + 1))
      ).toBe(true)
      expect(cell).toContain(`${bytesOf(text)} bytes, first ${bytesOf(kept)} shown; read it in parts with substr()]`)
    }
  )

  it.prop("capping twice is capping once: an earlier cut keeps its marker and its full length", [
    anyCell,
    FastCheck.integer({ min: 16, max: 400 })
  ], ([value, cap]) => {
    const once = capCell(value, cap)
    const twice = capCell(once.cell, cap)
    expect(twice.cell).toBe(once.cell)
    expect(twice.cutFrom).toBe(once.cutFrom)
    expect(twice.cutNow).toBeUndefined()
  })

  it("a blob is its hex literal while that fits the cell cap, then a literal of its first bytes with the blob's length", () => {
    expect(capCell(new Uint8Array([0, 255, 16]), 32_768).cell).toBe("X'00ff10'")
    const blob = new Uint8Array(50 * 1024 * 1024).fill(0xab)
    const capped = capCell(blob, 1024)
    expect(capped.cell).toBe(
      `X'${
        "ab".repeat(510)
      }' …[cut by dbdesk: blob of 52428800 bytes, first 510 bytes shown; read it in parts with substr()]`
    )
    expect(capped.cutFrom).toBe(52_428_800)
    expect(capped.bytes).toBe(jsonSize(capped.cell))
  })

  it("a 5 MB text cell comes back as 32 KiB plus the marker with its full length", () => {
    const budget = new AnswerBudget(10, { maxCellBytes: 32_768, maxAnswerBytes: 8 * 1024 * 1024 })
    budget.add([1, "x".repeat(5_000_000)])
    const cell = budget.rows[0]?.[1] as string
    expect(cell).toBe(
      `${"x".repeat(32_768)} …[cut by dbdesk: 5000000 bytes, first 32768 shown; read it in parts with substr()]`
    )
    expect(budget.truncated).toBe(false)
    expect(budget.note()).toBe(
      "1 value was cut at limits.maxCellBytes (32768 bytes); select length() or substr() of long columns"
    )
  })

  it("rows stop at the row limit and the note says how many are shown and how to get the others", () => {
    const budget = new AnswerBudget(2, undefined, BROWSE_HINTS)
    expect([budget.add([1]), budget.add([2]), budget.add([3])]).toEqual([true, true, false])
    expect(budget.stoppedBy).toBe("rows")
    expect(budget.note()).toBe("showing the first 2 rows; read the next rows with offset, or add filters")
  })

  it.prop(
    "no result set passes maxAnswerBytes: its exact JSON size stays within the cap, and a stop by bytes names the setting and how to narrow the query",
    [
      FastCheck.array(FastCheck.array(anyCell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 200 }),
      FastCheck.integer({ min: 256, max: 4096 }),
      FastCheck.integer({ min: 4096, max: 65_536 })
    ],
    ([rows, maxCellBytes, maxAnswerBytes]) => {
      const limits = { maxCellBytes, maxAnswerBytes }
      const budget = new AnswerBudget(10_000, limits)
      const columns = budget.header(["a", "b", "c", "d", "e", "f"])
      let offered = 0
      for (const row of rows) {
        offered++
        if (!budget.add(row)) break
      }
      const resultSet = budget.resultSet(columns, {
        executionMs: 12.345678,
        rowsAffected: 0,
        statusMessage: "SELECT 1"
      })
      expect(jsonSize(resultSet)).toBeLessThanOrEqual(maxAnswerBytes)
      expect(jsonSize(resultSet.rows)).toBeLessThanOrEqual(budget.size)
      for (const row of resultSet.rows) {
        for (const cell of row) {
          if (typeof cell === "string" && !cell.includes(MARKER)) {
            expect(bytesOf(cell)).toBeLessThanOrEqual(maxCellBytes)
          }
        }
      }
      if (budget.stoppedBy === "bytes") {
        expect(resultSet.is_truncated).toBe(true)
        expect(resultSet.rows.length).toBe(offered - 1)
        expect(resultSet.status_message).toMatch(
          /the answer reached limits\.maxAnswerBytes \(\d+ bytes\); select fewer columns, add a WHERE or a LIMIT/
        )
      } else expect(resultSet.rows.length).toBe(rows.length)
    }
  )

  it("a first row larger than the whole answer is shrunk to fit rather than dropped", () => {
    const limits = { maxCellBytes: 32_768, maxAnswerBytes: 65_536 }
    const budget = new AnswerBudget(10, limits)
    const row = Array.from({ length: 8 }, (_, index) => String(index).repeat(30_000))
    expect(budget.add(row)).toBe(true)
    const resultSet = budget.resultSet(budget.header(row.map((_, index) => `c${index}`)), { executionMs: 1 })
    expect(jsonSize(resultSet)).toBeLessThanOrEqual(65_536)
    expect(resultSet.rows[0]?.every((cell) => typeof cell === "string" && cell.includes("30000 bytes, first"))).toBe(
      true
    )
  })

  it("capResultSet leaves an answer within the caps alone and brings any other within them, saying why", () => {
    const small: ResultSet = {
      columns: ["a"],
      rows: [["x"], [1]],
      row_count: 2,
      rows_affected: 0,
      execution_time_ms: 1,
      is_truncated: false
    }
    expect(capResultSet(small, { maxCellBytes: 1024, maxAnswerBytes: 65_536 })).toBe(small)
    const big: ResultSet = { ...small, rows: Array.from({ length: 100 }, () => ["y".repeat(2000)]), row_count: 100 }
    const capped = capResultSet(big, { maxCellBytes: 1024, maxAnswerBytes: 65_536 })
    expect(jsonSize(capped)).toBeLessThanOrEqual(65_536)
    expect(capped).toMatchObject({ is_truncated: true, row_count: capped.rows.length })
    expect(capped.status_message).toMatch(
      /^showing the first \d+ rows: the answer reached limits\.maxAnswerBytes \(65536 bytes\).*; \d+ values were cut at limits\.maxCellBytes \(1024 bytes\)/
    )
    expect(capResultSet(capped, { maxCellBytes: 1024, maxAnswerBytes: 65_536 })).toBe(capped)
  })
})
