import { describeWhenInstalled } from "./InstalledSuite.ts"
import { POSTGRES_MISSING, postgresAvailable } from "./PostgresHarness.ts"

/**
 * A PostgreSQL suite: skipped with a warning without the binaries, failing with POSTGRES_MISSING under CI=true. Apart
 * from PostgresHarness because it imports vitest, and the bench (outside vitest) starts PostgreSQL through the harness.
 */
export const describePostgres = describeWhenInstalled(postgresAvailable, POSTGRES_MISSING)
