/** Removes a connection's configured secrets from any driver text before it leaves the server (C7.2-b). */
export type Redactor = (text: string) => string

export const REDACTED = "[redacted]"

const hexCaseVariants = (encoded: string): ReadonlyArray<string> => [
  encoded,
  encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())
]

/** Every spelling in which a secret may appear in driver text: raw, URL-encoded, form-encoded, JSON-escaped, base64. */
const spellingsOf = (secret: string): ReadonlyArray<string> => [
  secret,
  ...hexCaseVariants(encodeURIComponent(secret)),
  ...hexCaseVariants(encodeURI(secret)),
  ...hexCaseVariants(encodeURIComponent(secret).replace(/%20/g, "+")),
  JSON.stringify(secret).slice(1, -1),
  Buffer.from(secret, "utf8").toString("base64")
]

/** `scheme://user:password@host` and `password=…` in connection strings, whatever the password is. */
const GENERIC_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  [/\b(password|passwd|pwd|api[_-]?key|secret|token)(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s;&,]+)/gi, `$1$2${REDACTED}`]
]

export const makeRedactor = (secrets: ReadonlyArray<string>): Redactor => {
  const spellings = [...new Set(secrets.filter((s) => s.length > 0).flatMap(spellingsOf))]
    .sort((a, b) => b.length - a.length)
  return (text) => {
    let out = text
    for (const spelling of spellings) out = out.split(spelling).join(REDACTED)
    for (const [pattern, replacement] of GENERIC_PATTERNS) out = out.replace(pattern, replacement)
    return out
  }
}

/** A transaction's per-statement errors, redacted like every other driver text. */
export const redactOutcome = <O extends { readonly results: ReadonlyArray<{ readonly error: string | null }> }>(
  outcome: O,
  redact: Redactor
): O => ({
  ...outcome,
  results: outcome.results.map((
    result
  ) => (result.error === null ? result : { ...result, error: redact(result.error) }))
})
