/**
 * Index tokenisation (reference §2.2 "Matching semantics"): lower-cased, diacritics folded, split on
 * spaces and non-alphanumeric ASCII, tokens cut at 100 characters.
 */
export const tokenize = (value: string): Array<string> =>
  value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[\u0000-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f\s]+/)
    .filter((token) => token !== "")
    .map((token) => token.slice(0, 100))

/** Every string found in a field value (scalars and arrays), one entry per element. */
export const stringElements = (value: unknown): Array<string> => {
  if (typeof value === "string") return [value]
  if (Array.isArray(value)) return value.flatMap(stringElements)
  return []
}
