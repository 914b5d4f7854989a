import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { readingsFor, type SqlDialect, tokenize, tokenizeEveryReading } from "../../src/domain/SqlLexer.ts"

const dialect = FastCheck.constantFrom<SqlDialect>("sqlite", "postgresql", "mysql")
/** SQL-ish text over an alphabet that includes every character a lexical reading treats specially. */
const text = FastCheck.stringMatching(/^[A-Za-z0-9 ;'"`[\]\\/*$#\-Ee!M\n.()=_]{0,40}$/)
/** The same without the characters on which readings disagree (block comments, backslashes, `"`, brackets, backticks). */
const plainText = FastCheck.stringMatching(/^[A-Za-z0-9 ;'$#\-Ee!M\n.()=_*]{0,40}$/)

describe("SqlLexer readings", () => {
  it.prop(
    "classifier: every lexical reading's tokens are among the lists the classifier and the gate check",
    [text, dialect],
    ([sql, d]) => {
      const lists = tokenizeEveryReading(sql, d)
      for (const reading of readingsFor(d)) {
        const tokens = tokenize(sql, reading)
        assert.isTrue(
          lists.some((list) => JSON.stringify(list) === JSON.stringify(tokens)),
          `${JSON.stringify(sql)} under ${JSON.stringify(reading)}`
        )
      }
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.prop(
    "classifier: a text without comment openers, backslashes or quotes the readings disagree on is lexed once",
    [plainText, dialect],
    ([sql, d]) => {
      assert.strictEqual(tokenizeEveryReading(sql, d).length, 1)
      const first = JSON.stringify(tokenize(sql, readingsFor(d)[0]!))
      for (const reading of readingsFor(d)) assert.strictEqual(JSON.stringify(tokenize(sql, reading)), first)
    },
    { fastCheck: { numRuns: 500 } }
  )
})
