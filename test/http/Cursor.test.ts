import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck } from "effect"
import { decodeCursor, encodeCursor, PAGE_SIZE, paginate } from "../../src/http/Cursor.ts"

const LIST_METHODS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] as const
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

const codeOf = <A>(effect: Effect.Effect<A, { readonly code: number; readonly message: string }>) =>
  Effect.either(effect).pipe(
    Effect.map(Either.match({ onLeft: (error) => `${error.code} ${error.message}`, onRight: () => "accepted" }))
  )

describe("Cursor (wire contract §4.5)", () => {
  it.effect.prop(
    "C4.5-b a cursor accepted by the issuing method is refused with -32602 by every other method",
    [FastCheck.constantFrom(...LIST_METHODS), FastCheck.string({ maxLength: 30 }), FastCheck.nat({ max: 1_000_000 })],
    ([issuer, otherMethod, offset]) =>
      Effect.gen(function*() {
        const cursor = yield* encodeCursor(issuer, offset)
        expect(yield* decodeCursor(issuer, cursor)).toBe(offset)
        for (const other of [...LIST_METHODS, otherMethod].filter((method) => method !== issuer)) {
          expect(yield* codeOf(decodeCursor(other, cursor))).toBe("-32602 Invalid cursor")
        }
      }),
    { fastCheck: { numRuns: 50 } }
  )

  it.effect.prop(
    "C4.5-b any single-character change to a cursor is refused",
    [
      FastCheck.constantFrom(...LIST_METHODS),
      FastCheck.nat({ max: 10_000 }),
      FastCheck.nat(),
      FastCheck.nat({ max: BASE64URL.length - 1 })
    ],
    ([method, offset, position, replacementIndex]) =>
      Effect.gen(function*() {
        const cursor = yield* encodeCursor(method, offset)
        const index = position % cursor.length
        const original = cursor[index]!
        const replacement = BASE64URL[replacementIndex] === original
          ? (original === "A" ? "B" : "A")
          : BASE64URL[replacementIndex]!
        const tampered = cursor.slice(0, index) + replacement + cursor.slice(index + 1)
        expect(tampered).not.toBe(cursor)
        expect(yield* codeOf(decodeCursor(method, tampered))).toBe("-32602 Invalid cursor")
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect("C4.5-b every last character of a cursor is checked, even where base64url has padding bits", () =>
    Effect.gen(function*() {
      const cursor = yield* encodeCursor("tools/list", 50)
      for (const replacement of BASE64URL) {
        if (replacement === cursor.at(-1)) continue
        expect(yield* codeOf(decodeCursor("tools/list", cursor.slice(0, -1) + replacement))).toBe(
          "-32602 Invalid cursor"
        )
      }
    }))

  it.effect.prop(
    "C4.5-b garbage, the empty string and truncations are refused with -32602",
    [FastCheck.string({ maxLength: 200 })],
    ([garbage]) =>
      Effect.gen(function*() {
        expect(yield* codeOf(decodeCursor("tools/list", garbage))).toBe("-32602 Invalid cursor")
        const cursor = yield* encodeCursor("tools/list", 100)
        expect(yield* codeOf(decodeCursor("tools/list", cursor.slice(0, garbage.length % cursor.length)))).toBe(
          "-32602 Invalid cursor"
        )
      })
  )

  it.effect.prop(
    "C4.5-a C2.4-d walking the pages returns every item exactly once, at most 50 per page, nextCursor only when more remain",
    [FastCheck.nat({ max: 400 }), FastCheck.integer({ min: 1, max: 80 })],
    ([count, pageSize]) =>
      Effect.gen(function*() {
        const items = Array.from({ length: count }, (_, index) => `item-${index}`)
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* paginate("resources/list", items, cursor, pageSize)
          expect(page.items.length).toBeLessThanOrEqual(pageSize)
          seen.push(...page.items)
          if (page.nextCursor !== undefined) expect(seen.length).toBeLessThan(count)
          cursor = page.nextCursor
          pages += 1
        } while (cursor !== undefined && pages <= count + 1)
        expect(seen).toStrictEqual(items)
        expect(pages).toBe(Math.max(1, Math.ceil(count / pageSize)))
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("C4.5-a the default page size is 50: 120 items come back in pages of 50, 50 and 20", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 120 }, (_, index) => index)
      const first = yield* paginate("tools/list", items, undefined)
      const second = yield* paginate("tools/list", items, first.nextCursor)
      const third = yield* paginate("tools/list", items, second.nextCursor)
      expect(PAGE_SIZE).toBe(50)
      expect([first.items.length, second.items.length, third.items.length]).toStrictEqual([50, 50, 20])
      expect(third).not.toHaveProperty("nextCursor")
      expect(yield* codeOf(paginate("prompts/list", items, first.nextCursor))).toBe("-32602 Invalid cursor")
    }))

  it.effect("C4.5-b a cursor is stable: the same page of the same method always gets the same cursor", () =>
    Effect.gen(function*() {
      expect(yield* encodeCursor("tools/list", 50)).toBe(yield* encodeCursor("tools/list", 50))
      expect(yield* encodeCursor("tools/list", 50)).not.toBe(yield* encodeCursor("tools/list", 100))
    }))
})
