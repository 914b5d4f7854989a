import * as http from "node:http"

export interface RawAnswer {
  readonly status: number
  readonly body: string
  readonly json: any
}

/** POSTs with node:http through a bounded agent, so bursts stay under the server's 64-connection cap. */
export const postWithAgent = (agent: http.Agent, url: string, body: unknown, headers: Record<string, string>): { answer: Promise<RawAnswer>; abort: () => void } => {
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

export const eventually = async (check: () => boolean | Promise<boolean>, attempts = 400, intervalMs = 25): Promise<boolean> => {
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
