import type { UiConnectionInput } from "../../../domain/UiSchemas.ts"
import { DEFAULT_MAX_COST, DEFAULT_MAX_ROWS } from "../../../domain/CostGuard.ts"

type CostForm = Pick<UiConnectionInput, "type" | "costGuard" | "costMaxRows" | "costMaxCost">

const MODES: ReadonlyArray<readonly [string, string]> = [
  ["off", "Off"],
  ["ask", "Ask me before a large read"],
  ["refuse", "Refuse a large read"]
]

const numberOf = (text: string): number | null => (text.trim() === "" ? null : Number(text))

/**
 * D-95: the cost guard of a PostgreSQL or MySQL/MariaDB connection: before an AI client's read runs, the database's
 * own estimate is compared with these budgets; above them you are asked, or the read is refused with advice.
 */
export const CostGuardFields = ({ form, set }: { readonly form: CostForm; readonly set: (patch: Partial<CostForm>) => void }) => {
  const mode = form.costGuard ?? "off"
  return (
    <>
      <label className="field">Cost guard
        <select aria-label="Cost guard" value={mode} onChange={(e) => set({ costGuard: e.target.value as "off" | "ask" | "refuse" })}>
          {MODES.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
        </select>
      </label>
      {mode !== "off" && (
        <>
          <label className="field">Largest read (estimated rows)
            <input aria-label="Largest read (estimated rows)" type="number" min={1} step={1} value={form.costMaxRows ?? ""} placeholder={DEFAULT_MAX_ROWS.toLocaleString("en-US")} onChange={(e) => set({ costMaxRows: numberOf(e.target.value) })} />
          </label>
          {form.type === "postgresql" && (
            <label className="field">Largest read (estimated cost)
              <input aria-label="Largest read (estimated cost)" type="number" min={1} value={form.costMaxCost ?? ""} placeholder={DEFAULT_MAX_COST.toLocaleString("en-US")} onChange={(e) => set({ costMaxCost: numberOf(e.target.value) })} />
            </label>
          )}
          <p className="note">Before an AI client's read runs, the database estimates it without running it (EXPLAIN). A read estimated above these numbers {mode === "ask" ? "waits for your approval" : "is refused, with advice to add a WHERE, an index or a LIMIT"}. Empty uses the number shown.</p>
        </>
      )}
    </>
  )
}
