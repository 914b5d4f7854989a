import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * D-77: the layering a host can rely on, `domain` ← `search` ← `services` ← `http` ← `embed`/`bridge` ←
 * `cli`, checked over the import graph of src/ (static, type-only and dynamic imports and re-exports alike, read with
 * TypeScript's own pre-processor). `search` sits under `services` because the search-engine driver builds on the
 * client, and `dbdesk/search` must be usable alone.
 */
const SRC = join(import.meta.dirname, "..", "src")

/** What each top-level part of src/ may import besides itself. Adding a part: give it a row here. */
const MAY_IMPORT: Record<string, ReadonlyArray<string>> = {
  domain: [],
  ui: ["domain"],
  search: ["domain"],
  services: ["search", "domain"],
  http: ["services", "search", "domain"],
  embed: ["http", "services", "search", "domain"],
  bridge: ["http", "services", "search", "domain"],
  cli: ["bridge", "http", "services", "search", "domain"],
  "index.ts": ["embed", "http", "services", "search", "domain"],
  "main.ts": ["cli"]
}

/** Shared with the browser (house style §6): no Node built-ins. */
const NO_NODE_BUILTINS = new Set(["domain", "ui"])

const sources = (directory: string): Array<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })

const partOf = (file: string) => relative(SRC, file).split("/")[0]!

const graph = new Map<string, { readonly local: Array<string>; readonly modules: Array<string> }>()
for (const file of sources(SRC)) {
  const imported = ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((entry) =>
    entry.fileName
  )
  graph.set(relative(SRC, file), {
    local: imported.filter((name) => name.startsWith(".")).map((name) => relative(SRC, resolve(dirname(file), name))),
    modules: imported.filter((name) => !name.startsWith("."))
  })
}

/** Strongly connected components of more than one file (Tarjan), each sorted: the import cycles. */
const cycles = (): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file)?.local ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1) found.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe("layering (D-77)", () => {
  it("the graph was read: every part of src/ has a row in the table, and imports were found", () => {
    const parts = new Set([...graph.keys()].map((file) => file.split("/")[0]!))
    expect([...parts].filter((part) => !(part in MAY_IMPORT))).toEqual([])
    expect(graph.get("services/tools/QueryTools.ts")?.local).toContain("services/tools/StatementGates.ts")
  })

  it("no module imports a part above its own (domain ← search ← services ← http ← embed/bridge ← cli)", () => {
    const upward = [...graph].flatMap(([file, { local }]) => {
      const from = partOf(join(SRC, file))
      return local
        .filter((target) => {
          const to = partOf(join(SRC, target))
          return to !== from && !MAY_IMPORT[from]!.includes(to)
        })
        .map((target) =>
          `${file} imports ${target}: ${from} may import only ${
            MAY_IMPORT[from]!.join(", ") || "itself"
          }; move what both need down`
        )
    })
    expect(upward).toEqual([])
  })

  it("no import cycles, type-only and dynamic imports included", () => {
    expect(cycles().map((cycle) => cycle.join(" ↔ "))).toEqual([])
  })

  it("the cycle finder finds a planted cycle (so an empty answer above means something)", () => {
    graph.set("domain/__PlantedA.ts", { local: ["domain/__PlantedB.ts"], modules: [] })
    graph.set("domain/__PlantedB.ts", { local: ["domain/__PlantedA.ts"], modules: [] })
    try {
      expect(cycles()).toEqual([["domain/__PlantedA.ts", "domain/__PlantedB.ts"]])
    } finally {
      graph.delete("domain/__PlantedA.ts")
      graph.delete("domain/__PlantedB.ts")
    }
  })

  it("domain and ui, which the browser loads, import no Node built-in", () => {
    const offending = [...graph]
      .filter(([file]) => NO_NODE_BUILTINS.has(file.split("/")[0]!))
      .flatMap(([file, { modules }]) =>
        modules.filter((name) => name.startsWith("node:") || ["fs", "path", "os", "crypto"].includes(name)).map((
          name
        ) => `${file} imports ${name}`)
      )
    expect(offending).toEqual([])
  })
})
