// CSV as RFC 4180 writes it, safe to open in a spreadsheet.

// A cell a spreadsheet would run as a formula (=HYPERLINK(...), +cmd, -2+3, @SUM, and the tab or
// carriage return some read past): prefixed with an apostrophe, so it shows as the text it is (OWASP
// "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: formula-neutralised, then quoted when it holds a comma, a quote or a line break (quotes doubled). */
export function csvCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated. */
export function csvRow(cells: readonly (string | null | undefined)[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}
