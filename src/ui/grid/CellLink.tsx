/**
 * A cell's link (D-99): a small ↗ after the value, e.g. to a foreign key's referenced row. It takes no focus (the
 * keyboard follows it with Ctrl/Cmd+Enter on the cell) and does not start a selection drag. The arrow is drawn by
 * CSS, so the cell's text stays its value.
 */
export const CellLink = ({ title, follow }: { readonly title: string | undefined; readonly follow: () => void }) =>
  title === undefined
    ? null
    : (
      <button
        type="button"
        className="fk-link"
        tabIndex={-1}
        title={`${title} (Ctrl/Cmd+Enter)`}
        aria-label={title}
        onMouseDown={(event) => event.stopPropagation()}
        onDoubleClick={(event) => event.stopPropagation()}
        onClick={(event) => {
          event.stopPropagation()
          follow()
        }}
      />
    )
