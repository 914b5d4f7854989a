import { describe } from "vitest"
import { MARIADB_MISSING, mariadbAvailable } from "./MariadbHarness.ts"

/**
 * A MariaDB suite: skipped with a warning on a developer machine without the binaries; under CI=true it runs and
 * fails with MARIADB_MISSING, so a CI machine that lost its install step cannot pass by skipping. (Same contract as
 * the reliability branch's describeWhenInstalled; this becomes `describeWhenInstalled(mariadbAvailable, MARIADB_MISSING)`.)
 */
export const describeMariadb = (name: string, body: () => void): void => {
  const skip = !mariadbAvailable && process.env["CI"] !== "true"
  if (skip) console.warn(`[skipped] ${name}: ${MARIADB_MISSING}`)
  describe.skipIf(skip)(name, body)
}
