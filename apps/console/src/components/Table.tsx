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
}

/** A table in a keyboard-scrollable region named `label`, with a screen-reader caption and column headers. */
export function Table<T>({ label, caption = label, columns, rows, rowKey, rowProps, details, empty, note, className }: TableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <p>{empty}</p>;
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {note}
      <table className={className}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key ?? c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const more = details?.(row);
            return (
              <Fragment key={rowKey(row, i)}>
                <tr {...rowProps?.(row)}>
                  {columns.map((c) => (
                    <td key={c.key ?? c.header} className={typeof c.className === 'function' ? c.className(row) : c.className}>
                      {c.cell(row, i)}
                    </td>
                  ))}
                </tr>
                {more ? (
                  <tr>
                    <td colSpan={columns.length}>{more}</td>
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
