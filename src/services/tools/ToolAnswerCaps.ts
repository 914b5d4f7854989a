import { type AnswerLimits, capCell, capResultSet } from "../../domain/AnswerBudget.ts"
import { isJsonObject, type JsonObject } from "../../domain/Json.ts"
import { capAnswerObject } from "../../domain/JsonBudget.ts"
import type { ResultSet } from "../../domain/ResultSet.ts"
import { isFenced, toolResult } from "./Tool.ts"

/** How a non-result-set answer that was cut tells the model to ask for less. */
const LISTING_HINTS = {
  items:
    "ask for less: a narrower term or a smaller limit (search_schema), one table at a time (describe_table), or a resource for one table",
  texts: "raise limits.maxCellBytes to see long texts whole",
  readPart: "raise limits.maxCellBytes to see more"
}

const isResultSet = (value: JsonObject): boolean =>
  Array.isArray(value["columns"]) && Array.isArray(value["rows"]) && typeof value["is_truncated"] === "boolean"

/**
 * The last step of every `tools/call` answer (D-71, settings `limits.maxCellBytes` and `limits.maxAnswerBytes`):
 * whatever built it (a driver, the search engine, a catalog read), the JSON of its structured content stays within
 * `maxAnswerBytes` and its texts within `maxCellBytes`, and a cut answer says so. Answers the drivers already capped
 * pass unchanged; the text content is the JSON of the capped structured content again (D-17).
 */
export const capToolAnswer = (result: JsonObject, limits: AnswerLimits): JsonObject => {
  const content = result["structuredContent"]
  if (!isJsonObject(content)) return result
  if (result["isError"] === true) {
    const error = content["error"]
    if (!isJsonObject(error) || typeof error["message"] !== "string") return result
    const message = capCell(error["message"], limits.maxCellBytes, LISTING_HINTS.readPart)
    if (message.cutNow !== true) return result
    const text = Array.isArray(result["content"]) && isJsonObject(result["content"][0])
      ? result["content"][0]["text"]
      : undefined
    const cappedText = typeof text === "string" ? capCell(text, limits.maxCellBytes, LISTING_HINTS.readPart).cell : text
    return {
      ...result,
      content: [{ type: "text", text: typeof cappedText === "string" ? cappedText : "" }],
      structuredContent: { ...content, error: { ...error, message: message.cell } }
    }
  }
  const capped = isResultSet(content)
    ? capResultSet(content as unknown as ResultSet, limits) as unknown as JsonObject
    : capAnswerObject(content, limits, LISTING_HINTS)
  return capped === content ? result : { ...result, ...toolResult(capped, isFenced(result)) }
}
