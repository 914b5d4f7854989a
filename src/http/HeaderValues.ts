/**
 * Wire contract §4.2: non-ASCII values, or values with leading or trailing space, travel as
 * `=?base64?<base64 of UTF-8>?=`; a printable ASCII value without edge spaces is sent as is.
 */
const WRAPPER = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

export const needsWrapping = (value: string): boolean =>
  value === "" || !/^[\x20-\x7e]*$/.test(value) || value !== value.trim() || value.startsWith("=?base64?")

export const wrapHeaderValue = (value: string): string =>
  needsWrapping(value) ? `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=` : value

export type DecodedHeader = { readonly ok: true; readonly value: string } | {
  readonly ok: false
  readonly reason: string
}

/** Decodes one header value; a malformed wrapper or a control character is an error (C4.2-g). */
export const decodeHeaderValue = (raw: string): DecodedHeader => {
  if (CONTROL.test(raw)) return { ok: false, reason: "contains a control character" }
  if (!raw.startsWith("=?base64?")) return { ok: true, value: raw }
  const match = WRAPPER.exec(raw)
  if (match === null || (match[1] ?? "").length % 4 !== 0) {
    return { ok: false, reason: "is a malformed =?base64?…?= wrapper" }
  }
  const bytes = Buffer.from(match[1] ?? "", "base64")
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes)
  if (Buffer.from(text, "utf8").toString("base64") !== match[1]) {
    return { ok: false, reason: "is a =?base64?…?= wrapper that is not valid UTF-8" }
  }
  return { ok: true, value: text }
}
