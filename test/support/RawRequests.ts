import { readdirSync, readFileSync } from "node:fs"
import * as http from "node:http"

export interface RawAnswer {
  readonly status: number
  readonly body: string
  readonly json: any
}

/** POSTs with node:http through a bounded agent, so bursts stay under the server's 64-connection cap. */
export const postWithAgent = (
  agent: http.Agent,
  url: string,
  body: unknown,
  headers: Record<string, string>
): { answer: Promise<RawAnswer>; abort: () => void } => {
  const target = new URL(url)
  const text = JSON.stringify(body)
  let request: http.ClientRequest | undefined
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    request = http.request({
      agent,
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) }
    }, (response) => {
      let data = ""
      response.setEncoding("utf8")
      response.on("data", (chunk) => (data += chunk))
      response.on("end", () => {
        let json: unknown
        try {
          json = JSON.parse(data)
        } catch {
          json = undefined
        }
        resolve({ status: response.statusCode ?? 0, body: data, json })
      })
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(text)
  })
  return { answer, abort: () => request?.destroy() }
}

export const eventually = async (
  check: () => boolean | Promise<boolean>,
  attempts = 400,
  intervalMs = 25
): Promise<boolean> => {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  return false
}

export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** CPU ticks a process has used (utime + stime from /proc), or undefined once it is gone: a child visibly at work. */
export const cpuTicks = (pid: number): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

/**
 * Waits until the process `pid()` names (it may change, e.g. a child restarted) has used `ticks` more CPU ticks
 * than when first seen: the event "it is running the statement", not a guess in milliseconds. Returns that pid.
 */
export const busyProcess = async (
  pid: () => number | undefined,
  ticks = 3,
  what = "a busy process"
): Promise<number> => {
  const seen = new Map<number, number>()
  for (let i = 0; i < 2000; i++) {
    const current = pid()
    const used = current === undefined ? undefined : cpuTicks(current)
    if (current !== undefined && used !== undefined) {
      const first = seen.get(current) ?? used
      seen.set(current, first)
      if (used >= first + ticks) return current
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`never saw ${what}`)
}

/** The pids of a process's children (Linux /proc), e.g. the SQLite child a `serve` process started. */
export const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter((text) => text.trim() !== "").map(
        Number
      )
    )
  } catch {
    return []
  }
}
