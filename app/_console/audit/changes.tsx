'use client';

import { fieldDiff, showValue } from './diff';

/**
 * An entry's before and after, readable: a field-by-field diff (only the fields that differ) in a
 * details element, with both objects as pretty JSON beneath it for anything the diff leaves out.
 */
export function ChangesOf({ before, after }: { before: unknown; after: unknown }) {
  if ((before === null || before === undefined) && (after === null || after === undefined)) return <span className="muted">—</span>;
  const changes = fieldDiff(before, after);
  const keys = changes.map((c) => c.field);
  const summary =
    keys.length === 0
      ? 'No field changed'
      : `${keys.length} field${keys.length === 1 ? '' : 's'}: ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? '…' : ''}`;
  return (
    <details className="changes">
      <summary>{summary}</summary>
      {keys.length > 0 && (
        <table className="diff">
          <caption className="visually-hidden">Changed fields</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.field}>
                <th scope="row">
                  <code>{c.field}</code>
                </th>
                <td className="diff-before">
                  <code>{showValue(c.before)}</code>
                </td>
                <td className="diff-after">
                  <code>{showValue(c.after)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="json-pair">
        <div>
          <strong>Before</strong>
          <pre>{before === null || before === undefined ? 'null' : JSON.stringify(before, null, 2)}</pre>
        </div>
        <div>
          <strong>After</strong>
          <pre>{after === null || after === undefined ? 'null' : JSON.stringify(after, null, 2)}</pre>
        </div>
      </div>
    </details>
  );
}
