/**
 * A plain-text table for list commands: a title row, then one row a line, columns padded to their
 * widest cell and two spaces apart; the last column is never padded, so nothing trails a line.
 */
export function plainTable(titles: readonly string[], rows: readonly string[][]): string {
  const widths = titles.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  return [[...titles], ...rows]
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
