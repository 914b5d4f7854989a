import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { toCell } from "../../../src/domain/ResultSet.ts"
import { cellOf, parameterText } from "../../../src/services/drivers/postgres/PgCells.ts"

/** PostgreSQL's type OIDs, pinned here rather than read from the code under test. */
const OID = {
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  float4: 700,
  float8: 701,
  numeric: 1700,
  json: 114,
  bytea: 17,
  timestamptz: 1184
}

describe("PostgreSQL text values to result-set cells", () => {
  it.prop(
    "result set: int8 text becomes the same cell as the 64-bit value (a number in the safe range, its exact text beyond)",
    [
      FastCheck.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
    ],
    ([value]) => {
      assert.strictEqual(cellOf(value.toString(), OID.int8), toCell(value))
    }
  )

  it.prop("result set: float8 text becomes the same cell as the double (non-finite values as their names)", [
    FastCheck.double()
  ], ([value]) => {
    const text = Number.isNaN(value)
      ? "NaN"
      : value === Infinity
      ? "Infinity"
      : value === -Infinity
      ? "-Infinity"
      : Object.is(value, -0)
      ? "-0"
      : String(value)
    assert.deepStrictEqual(cellOf(text, OID.float8), toCell(value))
  })

  it.prop(
    "result set: int2/int4 text becomes the number",
    [FastCheck.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })],
    ([value]) => {
      assert.strictEqual(cellOf(String(value), OID.int4), value)
      if (Math.abs(value) < 32768) assert.strictEqual(cellOf(String(value), OID.int2), value)
    }
  )

  it.prop("a parameter's text reads back as the value for the scalar JSON types", [
    FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.boolean(), FastCheck.constant(null))
  ], ([value]) => {
    const text = parameterText(value)
    if (value === null) assert.isNull(text)
    else assert.strictEqual(text, String(value))
  })

  it("result set: booleans, NULL, and PostgreSQL's own text for numeric, json, bytea and timestamps", () => {
    assert.strictEqual(cellOf("t", OID.bool), true)
    assert.strictEqual(cellOf("f", OID.bool), false)
    assert.isNull(cellOf(null, OID.int4))
    assert.strictEqual(cellOf("12345678901234567890.12", OID.numeric), "12345678901234567890.12")
    assert.strictEqual(cellOf("{\"a\": [1, 2]}", OID.json), "{\"a\": [1, 2]}")
    assert.strictEqual(cellOf("\\x00ff10", OID.bytea), "\\x00ff10")
    assert.strictEqual(cellOf("2026-01-02 03:04:05.123456+00", OID.timestamptz), "2026-01-02 03:04:05.123456+00")
    assert.strictEqual(cellOf("plain", OID.text), "plain")
  })
})
