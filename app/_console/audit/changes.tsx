'use client';

type Json = unknown;

const isRecord = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: Json) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * An entry's before and after, readable: a field-by-field diff (only the fields that differ) in a
 * details element, with both objects as pretty JSON beneath it for anything the diff leaves out.
 */
export function ChangesOf({ before, after }: { before: Json; after: Json }) {
  if ((before === null || before === undefined) && (after === null || after === undefined)) return <span className="muted">—</span>;
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]));
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
            {keys.map((k) => (
              <tr key={k}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td className="diff-before">
                  <code>{show(b[k])}</code>
                </td>
                <td className="diff-after">
                  <code>{show(a[k])}</code>
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
