// The last step of `npm run reliability` (D-89): every file the whole run wrote — each part's serve logs,
// support directories (activity.db included), captured MCP and UI API answers, figures — and bench output if there
// is any, scanned for every password, API key and token any part configured; every support directory 0700 with its
// files 0600. In `npm test` each part is scanned on its own (Security.test.ts), so this one runs in the full run only.
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FULL, reportFigures, runRoot } from "./Run.ts"
import { fileModeProblems, readSecrets, scanForSecrets } from "./SecretsScan.ts"

describe.skipIf(!FULL)("secrets scan of the whole reliability run (D-89)", () => {
  it(
    "C7.2-b no configured secret anywhere the run wrote outside its store; support files 0600 in 0700 directories",
    () => {
      const root = runRoot()
      const secrets = readSecrets(root)
      const scan = scanForSecrets([root, join(import.meta.dirname, "../../bench/results.json")], secrets)
      const modes = fileModeProblems(root)
      reportFigures("scan", [
        { name: "secrets configured", value: secrets.length },
        { name: "files scanned", value: scan.files, unit: ` (${(scan.bytes / 1_048_576).toFixed(1)} MiB)` },
        { name: "secrets found", value: scan.findings.length, required: "0", ok: scan.findings.length === 0 },
        { name: "support files and directories checked", value: modes.checked },
        { name: "wrong modes", value: modes.problems.length, required: "0", ok: modes.problems.length === 0 }
      ], { findings: scan.findings, modes: modes.problems, parts: [...new Set(secrets.map((secret) => secret.part))] })
      expect(secrets.length, "the parts registered their secrets").toBeGreaterThan(0)
      expect(scan.findings).toEqual([])
      expect(modes.problems).toEqual([])
    },
    600_000
  )
})
