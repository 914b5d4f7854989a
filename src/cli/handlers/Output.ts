import { Console, Effect } from "effect"
import { failCommand } from "./Failure.ts"

/** Any failure of a command's own work becomes one plain line and exit 1. */
export const failingPlainly = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAll(effect, (error) => failCommand(error.message))

/** Prints a value as indented JSON. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Aligns rows of cells into columns for terminal output. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows.reduce<Array<number>>(
    (acc, row) => row.map((cell, index) => Math.max(acc[index] ?? 0, cell.length)),
    []
  )
  return rows.map((row) =>
    row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join("  ")
  ).join("\n")
}
