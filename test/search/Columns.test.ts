import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { deriveColumns } from "../../src/search/CollectionSchema.ts"
import { columnValue, documentRow, flattenDocument, toCell, unflattenDocument } from "../../src/search/Flatten.ts"

const field = (name: string, type: string, extra: Record<string, boolean> = {}) => ({ name, type, ...extra })

describe("collections as tables", () => {
  it("S1-a S2.2-a S2.2-b S2.2-c S2.2-f columns come from the schema, id first, leaves instead of parents", () => {
    const columns = deriveColumns({
      fields: [
        field("title", "string"),
        field("year", "int32", { sort: true }),
        field("Author", "string", { sort: true, optional: true }),
        field("meta", "object"),
        field("meta.pages", "int64", { sort: true, optional: true }),
        field("extra", "object"),
        field("ratings", "int32[]", { sort: false }),
        field(".*", "auto", { optional: true }),
        field("id", "string")
      ]
    })
    expect(columns.map((c) => c.name)).toEqual(["id", "Author", "extra", "meta.pages", "ratings", "title", "year"])
    expect(columns[0]).toEqual({
      name: "id",
      type: "string",
      isPrimaryKey: true,
      isReadOnly: true,
      isNullable: false,
      isSortable: false,
      isFacet: false
    })
    expect(columns.filter((c) => c.isSortable).map((c) => c.name)).toEqual(["Author", "meta.pages", "year"])
    expect(columns.find((c) => c.name === "Author")?.isNullable).toBe(true)
  })

  it("S2.2-e learned fields become columns when the schema is read again", () => {
    const before = deriveColumns({ fields: [field(".*", "auto", { optional: true })] })
    const after = deriveColumns({
      fields: [field(".*", "auto", { optional: true }), field("color", "string", { optional: true })]
    })
    expect(before.map((c) => c.name)).toEqual(["id"])
    expect(after.map((c) => c.name)).toEqual(["id", "color"])
  })

  it("S2.2-c S2.2-d nested values reach dotted columns; arrays and objects render as JSON text", () => {
    const document = {
      id: "1",
      meta: { pages: 412, tags: ["a"], dims: { w: 1 } },
      variants: [{ sku: "A1" }, { sku: "B2" }]
    }
    expect(documentRow(document, ["id", "meta.pages", "meta.tags", "meta.dims", "variants.sku", "missing"])).toEqual([
      "1",
      412,
      "[\"a\"]",
      "{\"w\":1}",
      "[\"A1\",\"B2\"]",
      null
    ])
    expect(columnValue({ "meta.pages": 3 }, "meta.pages")).toBe(3)
    expect(toCell(false)).toBe(false)
  })

  const key = FastCheck.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,6}$/)
  const { document } = FastCheck.letrec<{ document: Record<string, unknown>; value: unknown }>((tie) => ({
    document: FastCheck.dictionary(key, tie("value"), { maxKeys: 4 }),
    value: FastCheck.oneof(
      { depthSize: "small", withCrossShrink: true },
      FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.boolean(), FastCheck.constant(null)),
      FastCheck.array(FastCheck.oneof(FastCheck.string(), FastCheck.integer()), { maxLength: 3 }),
      tie("document")
    )
  }))

  it.prop("S2.2-c flattening then unflattening a nested document loses nothing", [document], ([doc]) => {
    const flat = flattenDocument(doc)
    Object.values(flat).forEach((value) => {
      const nestedObject = typeof value === "object" && value !== null && !Array.isArray(value) &&
        Object.keys(value).length > 0
      expect(nestedObject).toBe(false)
    })
    expect(unflattenDocument(flat)).toEqual(doc)
    Object.entries(flat).forEach(([column, value]) => expect(columnValue(doc, column)).toEqual(value))
  })
})
