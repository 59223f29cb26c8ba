'use client';

/** Cursor paging: "Next page" carries the last cursor; "First page" drops it. */
export function Pager({
  pageInfo,
  after,
  onPage,
}: {
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  after?: string;
  onPage: (after: string | undefined) => void;
}) {
  return (
    <nav aria-label="Pages" style={{ display: 'flex', gap: '0.75rem', marginTop: '0.75rem' }}>
      {after && (
        <button type="button" onClick={() => onPage(undefined)}>
          First page
        </button>
      )}
      {pageInfo.hasNextPage && pageInfo.endCursor && (
        <button type="button" onClick={() => onPage(pageInfo.endCursor!)}>
          Next page
        </button>
      )}
    </nav>
  );
}
