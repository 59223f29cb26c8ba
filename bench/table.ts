/** A plain-text table: columns sized to their content, numbers right-aligned. */
export function table(header: string[], rows: string[][], options: { indent?: string } = {}): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d,.]+( ?%|x)?$|^-$|^$/.test(r[i] ?? '')));
  const line = (r: string[]) =>
    (options.indent ?? '') +
    r
      .map((cell, i) => (numeric[i] ? (cell ?? '').padStart(widths[i]!) : (cell ?? '').padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), (options.indent ?? '') + widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
export const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '-');
export const ratio = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '-');
export const pct = (n: number): string => (Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(0)} %` : '-');
