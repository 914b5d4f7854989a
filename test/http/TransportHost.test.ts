import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { checkHost, checkOrigin } from "../../src/http/TransportGuard.ts"

const NAMES = ["localhost", "127.0.0.1", "[::1]"] as const
const randomCase = (text: string, flips: ReadonlyArray<boolean>) =>
  [...text].map((char, index) => (flips[index % Math.max(1, flips.length)] ? char.toUpperCase() : char)).join("")

/** The accepted Host values for a bound port, spelled out (D-42). */
const referenceAccepts = (host: string, port: number) => {
  const lower = host.toLowerCase()
  return lower === "::1" || NAMES.some((name) => lower === name || lower === `${name}:${port}`)
}

describe("Host and Origin checks (wire contract §4.1, D-42)", () => {
  it.prop(
    "C4.1-e a loopback name in any case, with the bound port or none, is accepted",
    [
      FastCheck.constantFrom(...NAMES),
      FastCheck.array(FastCheck.boolean(), { minLength: 1, maxLength: 12 }),
      FastCheck.integer({ min: 1, max: 65535 }),
      FastCheck.boolean()
    ],
    ([name, flips, port, withPort]) => {
      expect(checkHost(`${randomCase(name, flips)}${withPort ? `:${port}` : ""}`, port)).toBeUndefined()
    }
  )

  it.prop(
    "C4.1-e another port, a trailing dot or an extra label is refused with forbidden_host",
    [
      FastCheck.constantFrom(...NAMES),
      FastCheck.integer({ min: 1, max: 65535 }),
      FastCheck.integer({ min: 0, max: 65535 }),
      FastCheck.constantFrom("port", "dot", "label")
    ],
    ([name, bound, other, change]) => {
      const host = change === "port"
        ? `${name}:${other === bound ? bound + 1 : other}`
        : change === "dot"
        ? `${name.replace("]", ".]").replace(/^([^[].*)$/, "$1.")}`
        : `x.${name}`
      expect(checkHost(host, bound)?.code).toBe("forbidden_host")
    }
  )

  it.prop(
    "C4.1-e checkHost agrees with the spelled-out list for arbitrary Host values",
    [
      FastCheck.oneof(
        FastCheck.string({ maxLength: 24 }),
        FastCheck.constantFrom(
          "localhost:8080",
          "LOCALHOST:8080",
          "[::1]:8080",
          "::1",
          "127.0.0.1:08080",
          "localhost:8080:1"
        )
      ),
      FastCheck.constant(8080)
    ],
    ([host, port]) => {
      expect(checkHost(host, port) === undefined).toBe(referenceAccepts(host, port))
    }
  )

  it.prop(
    "C4.1-f an Origin is accepted exactly when it is absent or listed",
    [
      FastCheck.option(FastCheck.string({ maxLength: 30 }), { nil: undefined }),
      FastCheck.array(FastCheck.string({ maxLength: 30 }), { maxLength: 3 })
    ],
    ([origin, allowed]) => {
      const rejection = checkOrigin(origin, allowed)
      expect(rejection === undefined).toBe(origin === undefined || allowed.includes(origin))
      if (rejection !== undefined) expect(rejection.code).toBe("forbidden_origin")
    }
  )
})
