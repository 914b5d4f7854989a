import type { UiConnection } from "../../../domain/UiSchemas.ts"

/** The words the form and the list use for a connection's settings (never the stored values). */
export const EXTERNAL_ACCESS: ReadonlyArray<readonly [UiConnection["externalAccess"], string]> = [
  ["readOnly", "Read only"],
  ["readWrite", "Read and write"],
  ["blocked", "Blocked"]
]
export const AI_POLICY: ReadonlyArray<readonly [UiConnection["aiPolicy"], string]> = [
  ["askEachTime", "Ask each time"],
  ["alwaysAllow", "Always allow"],
  ["never", "Never"]
]
export const CONFIRM_QUERIES: ReadonlyArray<readonly [UiConnection["confirmQueries"], string]> = [
  ["writes", "Writes"],
  ["all", "All statements"]
]

export const labelOf = <V extends string>(options: ReadonlyArray<readonly [V, string]>, value: V): string =>
  options.find(([v]) => v === value)?.[1] ?? value

/** The colours a connection may have, named for people using a screen reader. */
export const COLORS: ReadonlyArray<readonly [string, string]> = [
  ["", "No colour"],
  ["#d92d20", "Red"],
  ["#f79009", "Orange"],
  ["#eaaa08", "Yellow"],
  ["#12b76a", "Green"],
  ["#2e90fa", "Blue"],
  ["#7a5af8", "Purple"],
  ["#667085", "Grey"]
]
