import { type ChildProcess, spawn } from "node:child_process"

/**
 * examples/embedded-host/host.mjs run as a user runs it (D-77): its stdout is watched, and its console
 * approval prompt is answered by writing a line to its stdin.
 */
export interface ExampleHostRun {
  readonly url: string
  readonly token: string
  readonly child: ChildProcess
  /** Everything printed so far. */
  readonly output: () => string
  /** Resolves once the output holds `pattern` `count` times (the prompt of the nth dialog, say). */
  readonly waitFor: (pattern: RegExp, count?: number) => Promise<void>
  readonly answer: (line: string) => void
  /** Sends SIGINT and resolves with the exit code once the process has ended. */
  readonly interrupt: () => Promise<number | null>
}

export const runExampleHost = (script: string, cwd: string) =>
  new Promise<ExampleHostRun>((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, stdio: ["pipe", "pipe", "pipe"] })
    let output = ""
    const waiters: Array<() => void> = []
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const seen = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      for (const waiter of [...waiters]) waiter()
      const url = /^MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(output)?.[1]
      const token = /^Bearer token \(shown once\): (dbd_\S+)$/m.exec(output)?.[1]
      if (url !== undefined && token !== undefined) resolve(run(url, token))
    }
    const run = (url: string, token: string): ExampleHostRun => ({
      url,
      token,
      child,
      output: () => output,
      waitFor: (pattern, count = 1) =>
        new Promise<void>((done, fail) => {
          const check = () => {
            if ((output.match(new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`)) ?? []).length < count) {
              return
            }
            waiters.splice(waiters.indexOf(check), 1)
            done()
          }
          waiters.push(check)
          check()
          void exited.then(() => fail(new Error(`the example host exited before printing ${pattern}:\n${output}`)))
        }),
      answer: (line) => void child.stdin.write(`${line}\n`),
      interrupt: () => {
        child.kill("SIGINT")
        return exited
      }
    })
    child.stdout.on("data", seen)
    child.stderr.on("data", seen)
    void exited.then((code) =>
      reject(new Error(`the example host exited (${code}) before printing its URL and token:\n${output}`))
    )
  })
