/** A placeholder while the first answer is on its way: grey bars, announced as busy. */
export const Skeleton = ({ rows = 6 }: { readonly rows?: number }) => (
  <div className="skeleton" aria-busy="true" aria-label="Loading">
    {Array.from({ length: rows }, (_, i) => <div key={i} className="skeleton-bar" style={{ width: `${60 + ((i * 37) % 40)}%` }} />)}
  </div>
)
