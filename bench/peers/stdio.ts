/**
 * An MCP server on stdio as a host runs it: one JSON-RPC message per line each way, `initialize` (2025-06-18, the
 * revision every peer speaks on stdio) and `notifications/initialized` first, then one call at a time, each sent once
 * the previous answer's line has arrived (what a host does with a model waiting on it).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { stopChild } from "../proc.ts"

export interface StdioCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: NodeJS.ProcessEnv
  readonly cwd?: string
}

export interface StdioStats {
  readonly calls: number
  readonly seconds: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly firstError?: string
}

const INIT_TIMEOUT_MS = 60_000
const CALL_TIMEOUT_MS = 15_000

export class StdioPeer {
  private readonly child: ChildProcess
  private buffer = ""
  private stderr = ""
  private nextId = 1
  private readonly waiting = new Map<number, (line: Record<string, unknown>) => void>()

  constructor(readonly name: string, command: StdioCommand) {
    this.child = spawn(command.command, [...command.args], {
      cwd: command.cwd,
      env: command.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"]
    })
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.onData(chunk))
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000)
    })
    this.child.stdin!.on("error", () => undefined)
  }

  get pid(): number {
    return this.child.pid ?? 0
  }

  private onData(chunk: string): void {
    this.buffer += chunk
    let end = this.buffer.indexOf("\n")
    while (end !== -1) {
      const line = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 1)
      end = this.buffer.indexOf("\n")
      if (line.trim() === "") continue
      let message: Record<string, unknown>
      try {
        message = JSON.parse(line) as Record<string, unknown>
      } catch {
        continue
      }
      const id = message["id"]
      if (typeof id !== "number" || !("result" in message || "error" in message)) continue
      const resolve = this.waiting.get(id)
      this.waiting.delete(id)
      resolve?.(message)
    }
  }

  /** Sends one request (params as given) and resolves with its response message. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs = CALL_TIMEOUT_MS
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id)
        reject(
          new Error(`${this.name}: no answer to ${method} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-600)}`)
        )
      }, timeoutMs)
      this.waiting.set(id, (message) => {
        clearTimeout(timer)
        resolve(message)
      })
      this.child.stdin!.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`
      )
    })
  }

  async initialize(): Promise<Record<string, unknown>> {
    const exited = new Promise<never>((_, reject) => {
      this.child.once(
        "exit",
        (code, signal) =>
          reject(new Error(`${this.name} exited (${signal ?? code}) before initialize: ${this.stderr.slice(-600)}`))
      )
    })
    const answer = await Promise.race([
      this.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "dbdesk-bench", version: "1.0.0" }
      }, INIT_TIMEOUT_MS),
      exited
    ])
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
    return answer
  }

  /** Sequential calls for `durationMs`: calls/s and latency from writing the line to reading the answer's line. */
  async measure(method: string, params: Record<string, unknown> | undefined, durationMs: number): Promise<StdioStats> {
    const latencies: Array<number> = []
    let errors = 0
    let firstError: string | undefined
    const started = performance.now()
    const deadline = started + durationMs
    while (performance.now() < deadline) {
      const t0 = performance.now()
      const answer = await this.request(method, params)
      const elapsed = performance.now() - t0
      const result = answer["result"] as Record<string, unknown> | undefined
      if (result === undefined || result["isError"] === true) {
        errors++
        firstError ??= JSON.stringify(answer).slice(0, 300)
        continue
      }
      latencies.push(elapsed)
    }
    const seconds = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)
    const at = (
      p: number
    ) => (latencies.length === 0
      ? Number.NaN
      : latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(p * latencies.length) - 1))]!)
    return {
      calls: latencies.length,
      seconds,
      rps: latencies.length / seconds,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      errors,
      ...(firstError === undefined ? {} : { firstError })
    }
  }

  stop(): Promise<void> {
    this.child.stdin!.end()
    return stopChild(this.child, 3_000)
  }
}
