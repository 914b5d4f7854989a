import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningEngine, startEngine } from "../support/engine/index.ts"
import { rawRequest } from "./EngineFixtures.ts"

/** A straightforward reading of reference §2.2, written independently of the engine. */
type Doc = { id: string; word?: string; tags?: Array<string>; n?: number; flag?: boolean }
type Clause =
  | { kind: "contains"; field: "word" | "tags"; value: string; prefix: boolean; negate: boolean }
  | { kind: "exact"; field: "word" | "tags"; values: Array<string>; negate: boolean }
  | { kind: "compare"; op: ">" | ">=" | "<" | "<=" | "="; value: number }
  | { kind: "range"; low: number; high: number }
  | { kind: "notEqual"; values: Array<number> }
  | { kind: "flag"; value: boolean; negate: boolean }
  | { kind: "ids"; ids: Array<string> }
type Expr = { kind: "clause"; clause: Clause } | { kind: "&&" | "||"; left: Expr; right: Expr; wrapLeft: boolean }

const WORDS = ["red", "fox", "blue", "whale", "redwood", "green"]
const word = fc.constantFrom(...WORDS)
const phrase = fc.array(word, { minLength: 1, maxLength: 2 }).map((ws) => ws.join(" "))

const docArb = (id: string) =>
  fc.record(
    {
      word: phrase,
      tags: fc.array(phrase, { maxLength: 3 }),
      n: fc.integer({ min: -5, max: 5 }),
      flag: fc.boolean()
    },
    { requiredKeys: [] }
  ).map((fields): Doc => ({ id, ...fields }))

const docsArb = fc.integer({ min: 0, max: 20 }).chain((size) =>
  fc.tuple(...Array.from({ length: size }, (_, i) => docArb(`d${i}`)))
)

const withCase = (value: string) => fc.constantFrom(value, value.toUpperCase())
const clauseArb: fc.Arbitrary<Clause> = fc.oneof(
  fc.record({
    field: fc.constantFrom("word" as const, "tags" as const),
    value: phrase.chain(withCase),
    prefix: fc.boolean(),
    negate: fc.boolean()
  })
    .map((c) => ({ kind: "contains" as const, ...c, prefix: c.prefix && !c.negate })),
  fc.record({
    field: fc.constantFrom("word" as const, "tags" as const),
    values: fc.array(phrase, { minLength: 1, maxLength: 3 }),
    negate: fc.boolean()
  })
    .map((c) => ({ kind: "exact" as const, ...c })),
  fc.record({
    op: fc.constantFrom(">" as const, ">=" as const, "<" as const, "<=" as const, "=" as const),
    value: fc.integer({ min: -6, max: 6 })
  })
    .map((c) => ({ kind: "compare" as const, ...c })),
  fc.tuple(fc.integer({ min: -6, max: 6 }), fc.integer({ min: -6, max: 6 })).map(([a, b]) => ({
    kind: "range" as const,
    low: Math.min(a, b),
    high: Math.max(a, b)
  })),
  fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 3 }).map((values) => ({
    kind: "notEqual" as const,
    values
  })),
  fc.record({ value: fc.boolean(), negate: fc.boolean() }).map((c) => ({ kind: "flag" as const, ...c })),
  fc.array(fc.integer({ min: 0, max: 25 }).map((i) => `d${i}`), { minLength: 1, maxLength: 4 }).map((ids) => ({
    kind: "ids" as const,
    ids
  }))
)

const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    clauseArb.map((clause): Expr => ({ kind: "clause", clause })),
    fc.record({
      kind: fc.constantFrom("&&" as const, "||" as const),
      left: tie("expr"),
      right: tie("expr"),
      wrapLeft: fc.boolean()
    })
  )
})).expr

const quoted = (value: string) => (value.includes(" ") ? `\`${value}\`` : value)
const renderClause = (c: Clause): string => {
  switch (c.kind) {
    case "contains":
      return `${c.field}:${c.negate ? "!" : ""}${quoted(c.value)}${c.prefix ? "*" : ""}`
    case "exact":
      return `${c.field}:${c.negate ? "!=" : "="}${
        c.values.length === 1 ? quoted(c.values[0]!) : `[${c.values.map(quoted).join(", ")}]`
      }`
    case "compare":
      return `n:${c.op}${c.value}`
    case "range":
      return `n:[${c.low}..${c.high}]`
    case "notEqual":
      return c.values.length === 1 ? `n:!=${c.values[0]}` : `n:!=[${c.values.join(",")}]`
    case "flag":
      return `flag:${c.negate ? "!=" : ""}${c.value}`
    case "ids":
      return `id:[${c.ids.join(",")}]`
  }
}
/** `&&` and `||` share one precedence, left to right (§2.2): a right operand that is itself binary needs parentheses. */
const render = (e: Expr): string => {
  if (e.kind === "clause") return renderClause(e.clause)
  const left = e.left.kind !== "clause" && e.wrapLeft ? `(${render(e.left)})` : render(e.left)
  const right = e.right.kind === "clause" ? render(e.right) : `(${render(e.right)})`
  return `${left} ${e.kind} ${right}`
}

const tokens = (text: string) => text.toLowerCase().split(" ")
const elements = (
  doc: Doc,
  field: "word" | "tags"
) => (field === "word" ? (doc.word === undefined ? [] : [doc.word]) : doc.tags ?? [])
const holds = (doc: Doc, c: Clause): boolean => {
  switch (c.kind) {
    case "contains": {
      const present = elements(doc, c.field).flatMap(tokens)
      const wanted = tokens(c.value)
      const found = wanted.every((
        t,
        i
      ) => (c.prefix && i === wanted.length - 1 ? present.some((p) => p.startsWith(t)) : present.includes(t)))
      return c.negate ? !found : found
    }
    case "exact": {
      const found = elements(doc, c.field).some((e) => c.values.some((v) => e.toLowerCase() === v.toLowerCase()))
      return c.negate ? !found : found
    }
    case "compare": {
      const n = doc.n
      if (n === undefined) return false
      return c.op === ">"
        ? n > c.value
        : c.op === ">="
        ? n >= c.value
        : c.op === "<"
        ? n < c.value
        : c.op === "<="
        ? n <= c.value
        : n === c.value
    }
    case "range":
      return doc.n !== undefined && doc.n >= c.low && doc.n <= c.high
    case "notEqual":
      return doc.n === undefined || !c.values.includes(doc.n)
    case "flag":
      return c.negate ? doc.flag !== c.value : doc.flag === c.value
    case "ids":
      return c.ids.includes(doc.id)
  }
}
const evaluate = (doc: Doc, e: Expr): boolean =>
  e.kind === "clause"
    ? holds(doc, e.clause)
    : e.kind === "&&"
    ? evaluate(doc, e.left) && evaluate(doc, e.right)
    : evaluate(doc, e.left) || evaluate(doc, e.right)

describe("engine: filter_by property", () => {
  let engine: RunningEngine
  let round = 0
  beforeAll(async () => {
    engine = await startEngine()
  })
  afterAll(() => engine.stop())

  it("engine: a generated filter_by over a generated collection selects what a straightforward evaluator selects", async () => {
    await fc.assert(
      fc.asyncProperty(docsArb, exprArb, async (docs, expr) => {
        const name = `c${round++}`
        await engine.createCollection({
          name,
          fields: [
            { name: "word", type: "string", optional: true },
            { name: "tags", type: "string[]", optional: true },
            { name: "n", type: "int32", optional: true },
            { name: "flag", type: "bool", optional: true }
          ]
        })
        await engine.importDocuments(name, docs)
        const answer = await rawRequest(engine, "POST", "/multi_search", {
          searches: [{ collection: name, q: "*", per_page: 250, filter_by: render(expr) }]
        })
        const result =
          (JSON.parse(answer.body) as { results: Array<{ hits?: Array<{ document: Doc }>; error?: string }> })
            .results[0]!
        expect(result.error).toBeUndefined()
        const selected = result.hits!.map((h) => h.document.id).sort()
        expect(selected).toEqual(docs.filter((d) => evaluate(d, expr)).map((d) => d.id).sort())
        await rawRequest(engine, "DELETE", `/collections/${name}`)
      }),
      { numRuns: 150 }
    )
  })
})
