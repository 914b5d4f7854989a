import { Effect } from "effect"
import type { Connection } from "../../domain/Connection.ts"
import type { SupportFiles } from "../../services/SupportDirectory.ts"

/** One doctor line per SSH tunnel: its path and each SSH host's key state (nobody is asked; nothing is written). */
export const tunnelChecks = (connections: ReadonlyArray<Connection>, files: SupportFiles) =>
  Effect.promise(async () => {
    const tunnelled = connections.filter((connection) =>
      (connection.type === "postgresql" || connection.type === "mysql") && connection.ssh !== undefined
    )
    if (tunnelled.length === 0) return []
    const { describeReport, reportTunnel } = await import("../../services/ssh/TunnelReport.ts")
    return Promise.all(tunnelled.map(async (connection) => {
      const report = await reportTunnel(connection as Extract<Connection, { type: "postgresql" | "mysql" }>, files)
      const id = `tunnel:${connection.id}`
      const title = `SSH tunnel of "${connection.name}"`
      if (report === undefined) return { id, title, status: "ok" as const, detail: "none" }
      const detail = describeReport(report)
      if (report.failure === undefined) return { id, title, status: "ok" as const, detail }
      const unknownKey = report.stage === "hostKey" && report.hosts.some((host) => host.state === "unknown")
      return {
        id,
        title,
        status: unknownKey ? "warn" as const : "fail" as const,
        detail: `${detail}: ${report.failure}`,
        fix: unknownKey
          ? `run dbdesk connection test ${connection.id} in a terminal: it shows the fingerprint and asks you to accept the key`
          : report.stage === "hostKey"
          ? "check the new key with the host's administrator before accepting it (the warning above says how)"
          : "check the SSH host, its port, the user and the key or agent (dbdesk connection list shows the tunnel's settings)"
      }
    }))
  })
