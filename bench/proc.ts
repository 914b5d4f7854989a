/** Reading a process's memory from /proc (Linux only), and stopping the bench's children. */
import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export const stopChild = (child: ChildProcess, graceMs = 5_000) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill("SIGTERM")
  })

/** VmRSS of a process in kB, from /proc (Linux). */
export const readRssKb = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  if (match === null) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(match[1])
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms, from /proc/<pid>/stat (Linux; the kernel
 * counts in ticks of 10 ms). On a busy machine a start-up's wall time stretches, its CPU time much less.
 */
export const readCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command name (which may hold spaces) start after the last ')'; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Every descendant of a process (the SQLite driver runs in a child of dbdesk), read from /proc. */
export const descendants = (pid: number): ReadonlyArray<number> => {
  const found: Array<number> = []
  const visit = (parent: number) => {
    let tasks: Array<string> = []
    try {
      tasks = readdirSync(`/proc/${parent}/task`)
    } catch {
      return
    }
    for (const task of tasks) {
      let text = ""
      try {
        text = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8")
      } catch {
        continue
      }
      for (const child of text.split(/\s+/).filter((s) => s.length > 0).map(Number)) {
        found.push(child)
        visit(child)
      }
    }
  }
  visit(pid)
  return found
}
