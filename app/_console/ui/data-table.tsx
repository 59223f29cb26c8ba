'use client';

import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';

/**
 * A table of rows already filtered and paged by the server (TanStack Table renders; the API does the
 * work over the whole history). The caption names the table for screen readers.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  empty,
  rowId,
  rowAttributes,
}: {
  caption: string;
  columns: ColumnDef<T, unknown>[];
  rows: T[];
  empty: string;
  /** A row's React key; absent, its index. A row with state of its own (a cell's mutation) keeps it when rows above it come and go. */
  rowId?: (row: T) => string;
  /** data- attributes of a row's <tr>, for a spec to find a row by what it holds (the replay list's data-replay). */
  rowAttributes?: (row: T) => Record<`data-${string}`, string>;
}) {
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: rowId });
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => (
              <th key={header.id} scope="col">
                {flexRender(header.column.columnDef.header, header.getContext())}
              </th>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length} className="muted">
              {empty}
            </td>
          </tr>
        ) : (
          table.getRowModel().rows.map((row) => (
            <tr key={row.id} {...rowAttributes?.(row.original)}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
