import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/BuildBins.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most test time is spent waiting on real servers (PostgreSQL, MariaDB, sshd, Chromium), so three forks on the
    // two-core CI machine overlap that waiting; Vitest's default there is one fork (cores − 1).
    maxWorkers: 3,
    reporters: ["default"]
  }
})
