/** A connection test's answer: a tick and green for a connection that answered, a cross and red with the reason otherwise. */
export type TestState = { readonly kind: "testing" } | { readonly kind: "ok" | "failed" | "cancelled"; readonly message: string }

export const TestResult = ({ state, label, onCancel, children }: {
  readonly state: TestState
  readonly label: string
  readonly onCancel?: () => void
  readonly children?: React.ReactNode
}) => (
  <div role="status" aria-label={label} className={`test-result ${state.kind}`}>
    {state.kind === "testing" && <>
      <span className="progress">Testing…</span>
      {onCancel !== undefined && <button onClick={onCancel}>Cancel test</button>}
    </>}
    {state.kind === "ok" && <><span aria-hidden="true">✔ </span>{state.message}</>}
    {state.kind === "failed" && <><span aria-hidden="true">✖ </span>{state.message}</>}
    {state.kind === "cancelled" && state.message}
    {children}
  </div>
)
