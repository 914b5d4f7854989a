import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

/**
 * The repository explains itself: test titles cite rule ids that docs/contract.md defines (and every rule there is
 * proved by a test), every decision id cited anywhere resolves in docs/decisions.md, and nothing cites the issue
 * tracker, whose numbers mean nothing to a reader of the repository.
 */
const root = path.resolve(import.meta.dirname, "..")

const SKIP = new Set(["node_modules", "dist", ".cache", "coverage"])
const filesUnder = (dir: string): Array<string> => {
  const full = path.join(root, dir)
  if (!fs.existsSync(full)) return []
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    SKIP.has(entry.name)
      ? []
      : entry.isDirectory()
      ? filesUnder(path.join(dir, entry.name))
      : [path.join(dir, entry.name)]
  )
}
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")

const RULE_ID = /\b[CS]\d+(?:\.\d+)?-[a-z]\b/g
const DECISION_ID = /\bD-\d+\b/g

const calleeRoot = (node: ts.Expression): string | undefined => {
  let e: ts.Expression = node
  for (;;) {
    if (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) e = e.expression
    else break
  }
  return ts.isIdentifier(e) ? e.text : undefined
}

/** The title of every `it`/`test`/`describe…` call of the test files, as written (templates unexpanded). */
const testTitles = (): Array<{ readonly file: string; readonly title: string }> =>
  filesUnder("test").filter((file) => /\.test\.tsx?$/.test(file)).flatMap((file) => {
    const text = read(file)
    const source = ts.createSourceFile(
      file,
      text,
      ts.ScriptTarget.Latest,
      true,
      file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
    )
    const titles: Array<{ file: string; title: string }> = []
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const first = node.arguments[0]
        const callee = calleeRoot(node.expression)
        if (
          first !== undefined && callee !== undefined && /^(it|test|describe\w*)$/.test(callee)
          && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first) || ts.isTemplateExpression(first))
        ) {
          titles.push({ file, title: first.getText(source).slice(1, -1) })
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    return titles
  })

const indexIds = (): Array<string> =>
  [...read("docs/contract.md").matchAll(/^\| ([CS]\d+(?:\.\d+)?-[a-z]) \|/gm)].map((m) => m[1]!)
const decisionIds = (): Array<string> => [...read("docs/decisions.md").matchAll(/^### (D-\d+) /gm)].map((m) => m[1]!)

describe("the rule index (docs/contract.md)", () => {
  const titles = testTitles()
  const index = new Set(indexIds())

  it("defines each rule id once, in a row with the rule, its modules and its tests", () => {
    const ids = indexIds()
    expect(ids.length).toBeGreaterThan(100)
    expect(new Set(ids).size).toBe(ids.length)
    for (const row of read("docs/contract.md").split("\n").filter((line) => /^\| [CS]\d/.test(line))) {
      expect(row.split(" | ").length, row).toBe(4)
    }
  })

  it("defines every rule id a test title cites", () => {
    const undefinedIds = titles.flatMap(({ file, title }) =>
      (title.match(RULE_ID) ?? []).filter((id) => !index.has(id)).map((id) => `${file}: ${id} in "${title}"`)
    )
    expect(undefinedIds).toEqual([])
  })

  it("has a test whose title cites each rule id it defines", () => {
    const cited = new Set(titles.flatMap(({ title }) => title.match(RULE_ID) ?? []))
    expect([...index].filter((id) => !cited.has(id))).toEqual([])
  })

  it("names modules (under src/) and test files (under test/) that exist", () => {
    const rows = read("docs/contract.md").split("\n").filter((line) => /^\| [CS]\d/.test(line)).map((line) =>
      line.split(" | ")
    )
    const paths = (cell: string | undefined) =>
      [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/\*$/, ""))
    const missing = rows.flatMap((row) => [
      ...paths(row[2]).filter((m) => !fs.existsSync(path.join(root, "src", m))).map((m) => `src/${m}`),
      ...paths(row[3]).filter((t) => !fs.existsSync(path.join(root, "test", t))).map((t) => `test/${t}`)
    ])
    expect([...new Set(missing)]).toEqual([])
  })
})

describe("the decisions (docs/decisions.md)", () => {
  const defined = decisionIds()

  it("numbers its decisions D-1, D-2, … once each, in order", () => {
    expect(defined.length).toBeGreaterThan(50)
    expect(defined).toEqual(defined.map((_, i) => `D-${i + 1}`))
  })

  it("defines every decision id cited in src, test, bench and docs", () => {
    const known = new Set(defined)
    const unresolved = ["src", "test", "bench", "docs"].flatMap(filesUnder).flatMap((file) =>
      (read(file).match(DECISION_ID) ?? []).filter((id) => !known.has(id)).map((id) => `${file}: ${id}`)
    )
    expect(unresolved).toEqual([])
  })
})

describe("citations", () => {
  it("no comment, test name or document cites an issue number in src, test, bench or docs", () => {
    const tracker = /issue [0-9]+/i
    const found = ["src", "test", "bench", "docs"].flatMap(filesUnder).flatMap((file) =>
      read(file).split("\n").flatMap((line, i) => (tracker.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []))
    )
    expect(found).toEqual([])
  })
})
