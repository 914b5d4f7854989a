// Where a reliability part keeps what it writes, which size it runs at, and how it reports its figures (D-89).
// `npm test` runs every part short; `npm run reliability` (scripts/reliability.mjs) runs them full, with
// DBDESK_RELIABILITY=full, one DBDESK_RELIABILITY_ROOT for everything they write (the secrets scan reads it all)
// and DBDESK_RELIABILITY_OUT for the figures each part reports.
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const FULL = process.env["DBDESK_RELIABILITY"] === "full"

/** `short` in npm test, `full` in npm run reliability. */
export const size = <A>(short: A, full: A): A => (FULL ? full : short)

const root = process.env["DBDESK_RELIABILITY_ROOT"] ?? mkdtempSync(join(tmpdir(), "dbdesk-reliability-"))
mkdirSync(root, { recursive: true })

/** A fresh directory under the run's root for one part (its support directories, logs, captured answers). */
export const partDirectory = (part: string): string => {
  mkdirSync(root, { recursive: true })
  return mkdtempSync(join(root, `${part}-`))
}

export const runRoot = (): string => root

/** A figure of the results table: a name, a value, and the value the issue's Acceptance requires (if any). */
export interface Figure {
  readonly name: string
  readonly value: number | string
  readonly unit?: string
  /** What passes, in words (`0`, `≤ 10 %`), when the Acceptance list names the figure. */
  readonly required?: string
  readonly ok?: boolean
}

/** Writes a part's figures for the results table (npm run reliability) and prints them (both modes). */
export const reportFigures = (
  part: string,
  figures: ReadonlyArray<Figure>,
  details: Record<string, unknown> = {}
): void => {
  const out = process.env["DBDESK_RELIABILITY_OUT"]
  if (out !== undefined) {
    mkdirSync(out, { recursive: true })
    writeFileSync(
      join(out, `${part}.json`),
      JSON.stringify({ part, mode: FULL ? "full" : "short", figures, details }, null, 2)
    )
  }
  console.log(
    `[reliability ${part}] ${figures.map((figure) => `${figure.name}: ${figure.value}${figure.unit ?? ""}`).join("; ")}`
  )
}

/**
 * Every password, API key and token a part configured (or was given), so the secrets scan of the run knows what to look
 * for. Appended to `<root>/secrets.jsonl`.
 */
export const registerSecret = (part: string, kind: string, value: string): void => {
  appendFileSync(join(root, "secrets.jsonl"), `${JSON.stringify({ part, kind, value })}\n`, { mode: 0o600 })
}
