import { describe } from "vitest"

/**
 * A suite that needs binaries installed outside npm (PostgreSQL, MariaDB): skipped with a warning on a developer
 * machine without them; under CI=true it runs and fails with `missing` (its harness throws it), so a CI machine that
 * lost its install step cannot pass by skipping.
 */
export const describeWhenInstalled =
  (available: boolean, missing: string) => (name: string, body: () => void): void => {
    const skip = !available && process.env["CI"] !== "true"
    if (skip) console.warn(`[skipped] ${name}: ${missing}`)
    describe.skipIf(skip)(name, body)
  }
