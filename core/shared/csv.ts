/** A cell a spreadsheet would run as a formula if it opened the file (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell of a CSV file (RFC 4180): quoted when it holds a quote, a comma or a line break, and
 * led by an apostrophe when it starts as a formula would, so a spreadsheet shows it as text.
 */
export function csvCell(value: string) {
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of a CSV file, with its CRLF. */
export const csvLine = (cells: readonly string[]) => `${cells.map(csvCell).join(",")}\r\n`;
