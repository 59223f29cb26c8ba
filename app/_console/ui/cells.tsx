import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { formatTime, timeParts } from './format';

/**
 * The link to an object's page (or to a list filtered to it) with the id in monospace, as every console
 * table and fact list writes it; '—' when the row has none (a delivery of an event about no order).
 * `prefix` is text inside the link before the id ("order", "Delivery"); `label` replaces the link's
 * accessible name when the id alone would not say where it goes.
 */
export function IdLink({
  id,
  href,
  label,
  title,
  prefix,
}: {
  id: string | null | undefined;
  href: string;
  label?: string;
  title?: string;
  prefix?: string;
}) {
  if (!id) return '—';
  return (
    <Link href={href} aria-label={label} title={title}>
      {prefix && `${prefix} `}
      <code>{id}</code>
    </Link>
  );
}

/** An API time as every console table shows it: formatTime's text in a <time> element; '—' for none. */
export function TimeCell({ at }: { at: string | null | undefined }) {
  if (!at) return formatTime(at);
  const [date, join, time] = timeParts(at);
  // The browser's zone and language write it; should a server ever render one, the browser's text stands.
  return (
    <time dateTime={at} suppressHydrationWarning>
      <span className="nowrap">{date}</span>
      {join}
      <span className="nowrap">{time}</span>
    </time>
  );
}

/** A column that is one time of the row. */
export function timeColumn<T>(header: string, at: (row: T) => string | null | undefined): ColumnDef<T, unknown> {
  return { header, cell: ({ row }) => <TimeCell at={at(row.original)} /> };
}

/** The partner a row belongs to: its id, then the environment, muted. */
export function PartnerCell({ id, environment }: { id: string; environment: string }) {
  return (
    <>
      <code>{id}</code> <span className="muted">{environment}</span>
    </>
  );
}
