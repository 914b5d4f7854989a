import type { Doc } from "./State.ts"

export const commaList = (value: string | undefined): Array<string> =>
  value === undefined ? [] : value.split(",").map((item) => item.trim()).filter((item) => item !== "")

const pick = (value: unknown, path: ReadonlyArray<string>): unknown => {
  if (path.length === 0) return value
  if (Array.isArray(value)) {
    const picked = value.map((element) => pick(element, path)).filter((v) => v !== undefined)
    return picked.length === 0 ? undefined : picked
  }
  if (typeof value !== "object" || value === null) return undefined
  const inner = pick((value as Doc)[path[0]!], path.slice(1))
  return inner === undefined ? undefined : { [path[0]!]: inner }
}

const merge = (target: Doc, addition: Doc): void => {
  for (const [key, value] of Object.entries(addition)) {
    const existing = target[key]
    if (
      typeof existing === "object" && existing !== null && !Array.isArray(existing) && typeof value === "object" &&
      value !== null
    ) {
      merge(existing as Doc, value as Doc)
    } else target[key] = value
  }
}

const remove = (value: unknown, path: ReadonlyArray<string>): void => {
  if (Array.isArray(value)) {
    for (const element of value) remove(element, path)
    return
  }
  if (typeof value !== "object" || value === null || path.length === 0) return
  const record = value as Doc
  if (path.length === 1) delete record[path[0]!]
  else remove(record[path[0]!], path.slice(1))
}

/** `include_fields` / `exclude_fields` on a returned document; dotted names reach nested fields. */
export const pruneDocument = (doc: Doc, include: ReadonlyArray<string>, exclude: ReadonlyArray<string>): Doc => {
  let result: Doc = structuredClone(doc)
  if (include.length > 0) {
    const kept: Doc = {}
    for (const name of include) {
      if (name in doc) kept[name] = structuredClone(doc[name])
      else {
        const picked = pick(doc, name.split("."))
        if (picked !== undefined) merge(kept, structuredClone(picked) as Doc)
      }
    }
    result = kept
  }
  for (const name of exclude) {
    if (name in result) delete result[name]
    else remove(result, name.split("."))
  }
  return result
}
