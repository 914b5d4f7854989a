import { describeWhenInstalled } from "./InstalledSuite.ts"
import { MARIADB_MISSING, mariadbAvailable } from "./MariadbHarness.ts"

/** A MariaDB suite: skipped with a warning without the binaries, failing with MARIADB_MISSING under CI=true. */
export const describeMariadb = describeWhenInstalled(mariadbAvailable, MARIADB_MISSING)
