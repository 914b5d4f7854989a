/** The grid's Save (D-86): a statement that changed another number of rows than its edit expected. Plain, for the SQLite child. */
export const rowCountMismatch = (expected: number, got: number): string =>
  `changed ${got} row${
    got === 1 ? "" : "s"
  } instead of ${expected}: the row was changed or deleted since the page was read; reload the page and edit again`
