import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

// D-59: `dbdesk connection add search` takes a cluster as the official client's settings, from the schema.
describe("dbdesk connection add search with a cluster", () => {
  it("--nodes, --nearest-node and the retry settings (seconds may be fractions) are saved as connections.json holds them", async () => {
    const home = tempHome()
    process.env["DBDESK_TEST_TS_KEY"] = "cluster-key"
    try {
      const added = await runInProcess(
        "connection",
        "add",
        "search",
        "--home",
        home,
        "--name",
        "Cluster",
        "--host",
        "node1.example",
        "--port",
        "8108",
        "--nodes",
        "http://node2.example:8108, https://node3.example:443",
        "--nearest-node",
        "https://near.example:443",
        "--num-retries",
        "4",
        "--retry-interval-seconds",
        "0.25",
        "--connection-timeout-seconds",
        "2.5",
        "--api-key-env",
        "DBDESK_TEST_TS_KEY"
      )
      expect(added.code, added.stderr).toBe(0)
      const saved = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections.find((
        connection: { name: string }
      ) => connection.name === "Cluster")
      expect(saved).toMatchObject({
        host: "node1.example",
        nodes: "http://node2.example:8108, https://node3.example:443",
        nearestNode: "https://near.example:443",
        numRetries: 4,
        retryIntervalSeconds: 0.25,
        connectionTimeoutSeconds: 2.5
      })
      const bad = await runInProcess(
        "connection",
        "add",
        "search",
        "--home",
        home,
        "--name",
        "Bad",
        "--host",
        "h",
        "--port",
        "8108",
        "--nodes",
        "node2:8108",
        "--api-key-env",
        "DBDESK_TEST_TS_KEY"
      )
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("\"node2:8108\" is not a node: write it as protocol://host:port")
    } finally {
      delete process.env["DBDESK_TEST_TS_KEY"]
    }
  })
})
