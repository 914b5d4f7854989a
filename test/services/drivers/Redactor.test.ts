import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { makeRedactor, REDACTED } from "../../../src/services/drivers/Redactor.ts"

/** Secrets drawn from characters that "[redacted]" does not contain, so a leftover can only be a leak. */
const secret = FastCheck.stringMatching(/^[A-Z0-9!@#$%^&*()_+=/ :?ÄÖü]{4,24}$/)
const text = FastCheck.string({ maxLength: 40 })

describe("Redactor", () => {
  it.prop(
    "C7.2-b every configured secret disappears from driver text, raw or URL-, form-, JSON- or base64-encoded",
    [secret, text, text],
    ([password, before, after]) => {
      const redact = makeRedactor(["unrelated-key", password])
      const spellings = [
        password,
        encodeURIComponent(password),
        encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
        encodeURIComponent(password).replace(/%20/g, "+"),
        JSON.stringify(password).slice(1, -1),
        Buffer.from(password).toString("base64")
      ]
      for (const spelling of spellings) {
        const out = redact(`${before}${spelling}${after}`)
        assert.notInclude(out, spelling)
      }
    }
  )

  it("C7.2-b a driver error echoing a configured password comes out without it", () => {
    const redact = makeRedactor(["hunter2!", "postgres://app:hunter2!@db.local:5432/shop"])
    const driverText = "FATAL: password authentication failed for user \"app\" (password \"hunter2!\")"
    const out = redact(driverText)
    assert.notInclude(out, "hunter2!")
    assert.include(out, REDACTED)
    assert.notInclude(redact("could not connect to postgres://app:hunter2%21@db.local/shop"), "hunter2")
  })

  it("C7.2-b passwords in connection strings are removed even when not configured", () => {
    const redact = makeRedactor([])
    assert.notInclude(redact("connect postgres://app:Other%40Secret@db:5432/x failed"), "Other%40Secret")
    assert.notInclude(redact("host=db user=app password='two words' dbname=x"), "two words")
    assert.notInclude(redact("host=db password=plain;dbname=x"), "plain")
  })

  it("text without secrets passes unchanged", () => {
    const redact = makeRedactor(["hunter2!"])
    assert.strictEqual(redact("no such table: orders"), "no such table: orders")
  })
})
