import { useEffect, useState } from "react"

const SIZES = [100, 500, 1000] as const
const n = (value: number) => value.toLocaleString("en-US")

/** "Rows 1,001–2,000 of 3,564": where the page is, in plain words (the total when it is known). */
export const pageStatus = (offset: number, shown: number, total: number | null): string =>
  `Rows ${shown === 0 ? 0 : n(offset + 1)}–${n(offset + shown)}${total === null ? "" : ` of ${n(total)}`}`

/** Paging of the Data view: previous/next, the page number to jump to, the page size, and a count on demand. */
export const PageControls = ({ offset, pageSize, shown, total, loading, onOffset, onPageSize, onCount }: {
  readonly offset: number
  readonly pageSize: number
  readonly shown: number | undefined
  readonly total: number | null
  readonly loading: boolean
  readonly onOffset: (offset: number) => void
  readonly onPageSize: (size: number) => void
  /** Set when the total is not known yet: counts the rows. */
  readonly onCount: (() => void) | undefined
}) => {
  const current = Math.floor(offset / pageSize) + 1
  const pages = total === null ? undefined : Math.max(1, Math.ceil(total / pageSize))
  const [draft, setDraft] = useState(String(current))
  useEffect(() => setDraft(String(current)), [current])
  const jump = () => {
    const wanted = Math.trunc(Number(draft))
    if (!Number.isFinite(wanted) || wanted < 1) return setDraft(String(current))
    const target = pages === undefined ? wanted : Math.min(pages, wanted)
    onOffset((target - 1) * pageSize)
  }
  const last = shown !== undefined && (shown < pageSize || (total !== null && offset + shown >= total))
  return (
    <>
      <button disabled={offset === 0 || loading} onClick={() => onOffset(offset - pageSize)}>◀ Previous</button>
      <span aria-label="Page status">{shown === undefined ? "" : pageStatus(offset, shown, total)}</span>
      <button disabled={loading || shown === undefined || last} onClick={() => onOffset(offset + pageSize)}>Next ▶</button>
      <label className="page-jump">
        Page
        <input
          aria-label="Page number"
          inputMode="numeric"
          size={4}
          value={draft}
          onChange={(event) => setDraft(event.target.value.replace(/[^0-9]/g, ""))}
          onKeyDown={(event) => { if (event.key === "Enter") jump() }}
          onBlur={() => setDraft(String(current))}
        />
        {pages === undefined ? "" : `of ${n(pages)}`}
      </label>
      <label className="page-size">
        <select aria-label="Rows per page" value={pageSize} onChange={(event) => onPageSize(Number(event.target.value))}>
          {SIZES.map((size) => <option key={size} value={size}>{n(size)} rows</option>)}
        </select>
      </label>
      {onCount !== undefined && <button onClick={onCount} disabled={loading} title="Count the rows that match (a large table is not counted on every read)">Count rows</button>}
    </>
  )
}
