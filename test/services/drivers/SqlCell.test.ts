import { assert, describe, it } from "@effect/vitest"
import { FastCheck, Schema } from "effect"
import { CellValue, toCell } from "../../../src/domain/ResultSet.ts"

describe("toCell", () => {
  it.prop("result set: 64-bit integers are numbers inside the safe range and exact strings outside it", [
    FastCheck.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
  ], ([value]) => {
    const cell = toCell(value)
    if (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)) {
      assert.strictEqual(cell, Number(value))
    } else {
      assert.strictEqual(cell, value.toString())
    }
  })

  it.prop("result set: every cell is a valid JSON cell value", [
    FastCheck.anything({ withBigInt: true, withDate: true, withTypedArray: true })
  ], ([value]) => {
    const cell = toCell(value)
    assert.isTrue(Schema.is(CellValue)(cell))
    assert.doesNotThrow(() => JSON.stringify(cell))
  })

  it("result set: blobs read as hex literals while they fit limits.maxCellBytes, then as the literal of their first bytes with their length", () => {
    assert.strictEqual(toCell(new Uint8Array([0, 255, 16])), "X'00ff10'")
    assert.strictEqual(toCell(new Uint8Array(5000)), `X'${"00".repeat(5000)}'`)
    assert.strictEqual(
      toCell(new Uint8Array(20_000)),
      `X'${
        "00".repeat(16_382)
      }' …[cut by dbdesk: blob of 20000 bytes, first 16382 bytes shown; read it in parts with substr()]`
    )
    assert.deepStrictEqual([new Uint8Array([1]), "text"].map(toCell), ["X'01'", "text"])
    assert.strictEqual(toCell(Number.POSITIVE_INFINITY), "Infinity")
  })
})
