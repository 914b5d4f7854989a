import { Effect } from "effect"
import { CompactSign, compactVerify } from "jose"
import { randomBytes, timingSafeEqual } from "node:crypto"
import { ProtocolError } from "../domain/ProtocolErrors.ts"

/** Wire contract §4.5 / §8: the four list methods return at most 50 items per page. */
export const PAGE_SIZE = 50

/** A 256-bit HS256 key made once per process: cursors of a previous run are refused. */
const CURSOR_KEY: Uint8Array = randomBytes(32)

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()

const invalidCursor = (method: string) => ProtocolError.invalidParams("Invalid cursor", { method })

interface CursorPayload {
  readonly m: string
  readonly o: number
}

const sign = (payload: CursorPayload): Promise<string> =>
  new CompactSign(textEncoder.encode(JSON.stringify(payload))).setProtectedHeader({ alg: "HS256" }).sign(CURSOR_KEY)

/** Wire contract §4.5: an opaque cursor bound to the method that issued it (C4.5-b). */
export const encodeCursor = (method: string, offset: number): Effect.Effect<string> =>
  Effect.promise(() => sign({ m: method, o: offset }))

const readPayload = (bytes: Uint8Array): CursorPayload | undefined => {
  try {
    const value = JSON.parse(textDecoder.decode(bytes)) as unknown
    if (typeof value !== "object" || value === null) return undefined
    const { m, o } = value as Record<string, unknown>
    return typeof m === "string" && typeof o === "number" && Number.isSafeInteger(o) && o >= 0 ? { m, o } : undefined
  } catch {
    return undefined
  }
}

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * The offset a cursor stands for, or -32602 "Invalid cursor" for garbage, a tampered cursor or
 * one issued by another method (§7.1 "bad cursor"). HS256 is deterministic, so the cursor must
 * also equal its own re-signing: base64url padding bits cannot be flipped unnoticed.
 */
export const decodeCursor = (method: string, cursor: string): Effect.Effect<number, ProtocolError> =>
  Effect.tryPromise({
    try: async () => {
      const { payload, protectedHeader } = await compactVerify(cursor, CURSOR_KEY, { algorithms: ["HS256"] })
      const decoded = readPayload(payload)
      if (protectedHeader.alg !== "HS256" || decoded === undefined || decoded.m !== method) return undefined
      return sameText(await sign(decoded), cursor) ? decoded.o : undefined
    },
    catch: () => invalidCursor(method)
  }).pipe(
    Effect.flatMap((offset) => offset === undefined ? Effect.fail(invalidCursor(method)) : Effect.succeed(offset))
  )

export interface Page<T> {
  readonly items: Array<T>
  readonly nextCursor?: string
}

/**
 * One page of a list method (§4.5): `nextCursor` only when more items remain (C2.4-d). An offset
 * past the end (the list shrank between pages) is an empty last page.
 */
export const paginate = <T>(
  method: string,
  items: ReadonlyArray<T>,
  cursor: string | undefined,
  pageSize: number = PAGE_SIZE
): Effect.Effect<Page<T>, ProtocolError> =>
  Effect.gen(function*() {
    const offset = cursor === undefined ? 0 : yield* decodeCursor(method, cursor)
    const end = offset + pageSize
    const page = items.slice(offset, end)
    if (end >= items.length) return { items: page }
    return { items: page, nextCursor: yield* encodeCursor(method, end) }
  })
