import ts from "typescript"
import { readFileSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
const files = []
const walk = (d) => { for (const n of readdirSync(d)) { const p = join(d, n); if (statSync(p).isDirectory()) walk(p); else if (n.endsWith(".d.ts")) files.push(p) } }
walk("dist/types")
for (const f of files) {
  const sf = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true)
  const visit = (n) => {
    if (n.kind === ts.SyntaxKind.AnyKeyword) {
      let p = n; let base = false
      while (p) { if (ts.isVariableDeclaration(p) && p.name.getText().endsWith("_base")) base = true; p = p.parent }
      const line = sf.getLineAndCharacterOfPosition(n.getStart()).line + 1
      if (!base) console.log(f + ":" + line, n.parent.getText().slice(0, 120))
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
}
