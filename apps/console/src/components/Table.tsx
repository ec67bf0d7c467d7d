import { Fragment, type HTMLAttributes, type Key, type ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell(row: T, index: number): ReactNode;
  /** React key of the column; the header unless two headers can be the same. */
  key?: string;
  /** The cells' class, the same for every row or chosen by the row. */
  className?: string | ((row: T) => string);
}

export interface TableProps<T> {
  /** The scrolling region's accessible name; also the caption unless `caption` is given. */
  label: string;
  /** The table's caption (for screen readers only). */
  caption?: ReactNode;
  columns: Column<T>[];
  rows: T[];
  rowKey(row: T, index: number): Key;
  /** Attributes of a row's `<tr>`. */
  rowProps?(row: T): Pick<HTMLAttributes<HTMLTableRowElement>, 'className' | 'aria-current'>;
  /** A full-width row under a row (its attempts, say), where this returns something. */
  details?(row: T): ReactNode;
  /** Shown instead of the table when there are no rows; without it an empty table is shown. */
  empty?: string;
  /** Shown inside the region above the table, read with it. */
  note?: ReactNode;
  className?: string;
  /**
   * On phones: `stack` (default) turns each row into a card of label/value lines; `scroll` keeps the columns and
   * shows a scroll cue (a diff, where columns side by side are the point).
   */
  phone?: 'stack' | 'scroll';
}

/** A table in a keyboard-scrollable region named `label`, with a screen-reader caption and column headers. */
export function Table<T>({ label, caption = label, columns, rows, rowKey, rowProps, details, empty, note, className, phone = 'stack' }: TableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <p>{empty}</p>;
  return (
    // Explicit roles keep the table's semantics when the phone layout displays its parts as blocks.
    <div className={`table-wrap ${phone === 'stack' ? 'stack' : 'scroll-cue'}`} role="region" aria-label={label} tabIndex={0}>
      {note}
      <table className={className} role="table">
        <caption className="sr-only">{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c) => (
              <th key={c.key ?? c.header} scope="col" role="columnheader" className={typeof c.className === 'string' ? c.className : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row, i) => {
            const more = details?.(row);
            return (
              <Fragment key={rowKey(row, i)}>
                <tr role="row" {...rowProps?.(row)}>
                  {columns.map((c) => (
                    <td
                      key={c.key ?? c.header}
                      role="cell"
                      data-label={c.header}
                      className={typeof c.className === 'function' ? c.className(row) : c.className}
                    >
                      <span className="cell">{c.cell(row, i)}</span>
                    </td>
                  ))}
                </tr>
                {more ? (
                  <tr role="row">
                    <td role="cell" className="full" colSpan={columns.length}>
                      {more}
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
