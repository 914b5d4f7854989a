/** Reading a process's memory from /proc (Linux only). */
import { readdirSync, readFileSync } from "node:fs"

/** VmRSS of a process in kB, from /proc (Linux). */
export const readRssKb = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  if (match === null) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(match[1])
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
