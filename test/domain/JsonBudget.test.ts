import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { capAnswerObject, capAnswerText, capJson, jsonBytes } from "../../src/domain/JsonBudget.ts"

const jsonSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")
const hints = {
  items: "ask for one table",
  texts: "raise limits.maxCellBytes",
  readPart: "raise limits.maxCellBytes to see more"
}
const json = FastCheck.jsonValue({ maxDepth: 4 })

describe("JsonBudget", () => {
  it.prop("jsonBytes is the exact UTF-8 size of JSON.stringify", [json], ([value]) => {
    expect(jsonBytes(value)).toBe(jsonSize(value))
  })

  it.prop(
    "capJson reports its own size exactly, cuts only what it reports, and keeps lists within maxAnswerBytes",
    [json, FastCheck.integer({ min: 16, max: 256 }), FastCheck.integer({ min: 2100, max: 8000 })],
    ([value, maxCellBytes, maxAnswerBytes]) => {
      const capped = capJson(value, { maxCellBytes, maxAnswerBytes }, hints.readPart)
      expect(capped.bytes).toBe(jsonSize(capped.value))
      if (Array.isArray(value)) expect(capped.bytes).toBeLessThanOrEqual(maxAnswerBytes - 2048)
      if (capped.cutTexts === 0 && capped.dropped.length === 0) expect(capped.value).toEqual(value)
    }
  )

  it("capJson keeps an own __proto__ key (as JSON.parse makes one) and counts it (seed 360575791 of the property above)", () => {
    const value = JSON.parse("{\"__proto__\":false,\"a\":{\"__proto__\":\"x\"}}") as unknown
    const capped = capJson(value, { maxCellBytes: 16, maxAnswerBytes: 2100 }, hints.readPart)
    expect(JSON.stringify(capped.value)).toBe("{\"__proto__\":false,\"a\":{\"__proto__\":\"x\"}}")
    expect(capped.bytes).toBe(jsonSize(capped.value))
  })

  it.prop(
    "no answer object passes maxAnswerBytes, whatever it holds",
    [
      FastCheck.dictionary(FastCheck.string(), json),
      FastCheck.integer({ min: 16, max: 256 }),
      FastCheck.integer({ min: 2100, max: 8000 })
    ],
    ([value, maxCellBytes, maxAnswerBytes]) => {
      const capped = capAnswerObject(value, { maxCellBytes, maxAnswerBytes }, hints)
      expect(jsonSize(capped)).toBeLessThanOrEqual(maxAnswerBytes)
      if (capped !== value) {
        expect(capped).toMatchObject({
          truncated: true,
          status_message: expect.stringMatching(/limits\.max(Answer|Cell)Bytes/)
        })
      }
    }
  )

  it("an answer with a list too long for maxAnswerBytes keeps the first items and says how many of how many, naming the setting", () => {
    const tables = Array.from({ length: 5000 }, (_, index) => ({ name: `table_${index}`, type: "table" }))
    const capped = capAnswerObject({ tables }, { maxCellBytes: 1024, maxAnswerBytes: 65_536 }, hints)
    expect(jsonSize(capped)).toBeLessThanOrEqual(65_536)
    expect(capped.tables.length).toBeGreaterThan(100)
    expect(capped.tables).toEqual(tables.slice(0, capped.tables.length))
    expect(capped).toMatchObject({ truncated: true })
    expect((capped as Record<string, unknown>)["status_message"]).toBe(
      `the answer reached limits.maxAnswerBytes (65536 bytes): tables shows ${capped.tables.length} of 5000 items; ask for one table`
    )
  })

  it("an answer within the caps is returned as it is", () => {
    const answer = { ddl: "CREATE TABLE t (a)" }
    expect(capAnswerObject(answer, { maxCellBytes: 1024, maxAnswerBytes: 65_536 }, hints)).toBe(answer)
  })

  it.prop("capAnswerText cuts one long text at the answer cap, by its JSON size", [
    FastCheck.string({ unit: "binary", maxLength: 20_000 })
  ], ([text]) => {
    const limits = { maxCellBytes: 256, maxAnswerBytes: 8192 }
    const capped = capAnswerText(text, limits, "ask for less")
    expect(jsonSize(capped.text)).toBeLessThanOrEqual(8192)
    if (!capped.cut) expect(capped.text).toBe(text)
    else expect(capped.text).toMatch(/ …\[cut by dbdesk: \d+ bytes, first \d+ shown; ask for less\]$/)
  })
})
