import type { ColumnDef } from '@tanstack/react-table';
import Link from 'next/link';
import { CopyButton } from './copy';
import { Fragment } from 'react';
import { formatTime, shortId, timeParts, urlPieces } from './format';

/**
 * An id as tables show it: short (shortId: `…7KQ2M9AB`), the whole id its tooltip and what screen readers
 * read (and what a page's text holds, so a search of the page finds it).
 */
function IdText({ id }: { id: string }) {
  const short = shortId(id);
  if (short === id) return <code>{id}</code>;
  return (
    <code title={id}>
      <span aria-hidden="true">{short}</span>
      <span className="visually-hidden">{id}</span>
    </code>
  );
}

/** An id that links nowhere (the page it names is this one, or there is none), short, with a copy button. */
export function ShortId({ id, copy = true }: { id: string | null | undefined; copy?: boolean }) {
  if (!id) return '—';
  return (
    <span className="id">
      <IdText id={id} />
      {copy && <CopyButton compact text={id} label={`Copy ${id}`} />}
    </span>
  );
}

/**
 * The link to an object's page (or to a list filtered to it) with the id short and in monospace, then a
 * button copying the whole id, as every console table and fact list writes it; '—' when the row has none
 * (a delivery of an event about no order). `prefix` is text inside the link before the id ("order",
 * "Delivery"); `label` replaces the link's accessible name when the id alone would not say where it goes.
 */
export function IdLink({
  id,
  href,
  label,
  title,
  prefix,
  copy = true,
}: {
  id: string | null | undefined;
  href: string;
  label?: string;
  title?: string;
  prefix?: string;
  copy?: boolean;
}) {
  if (!id) return '—';
  return (
    <span className="id">
      <Link href={href} aria-label={label} title={title}>
        {prefix && `${prefix} `}
        <IdText id={id} />
      </Link>
      {copy && <CopyButton compact text={id} label={`Copy ${id}`} />}
    </span>
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

/** The partner a row belongs to: its name, linking to its page, then the environment, muted. */
export function PartnerCell({ id, name, environment }: { id: string; name: string; environment: string }) {
  return (
    <>
      <Link href={`/partners/${id}`} title={id}>
        {name}
      </Link>{' '}
      <span className="muted">{environment}</span>
    </>
  );
}

/** A URL that wraps where a reader expects (urlPieces: before a `/`, at `?` and `&`), not mid-word. */
export function UrlText({ url }: { url: string }) {
  return (
    <span className="url">
      {urlPieces(url).map((piece, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {piece}
        </Fragment>
      ))}
    </span>
  );
}
