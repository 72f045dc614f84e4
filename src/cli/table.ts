// Aligned plain-text tables for the CLI's human output: columns padded to their widest cell,
// two spaces apart, no trailing spaces.

/** The lines of a table with a header row. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line);
}
