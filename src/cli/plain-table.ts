/**
 * The one style of the list commands' tables (sessions, workspaces, workflow list and runs, mcp
 * list, worker status): an upper-case title row, then one row a line, columns padded to their
 * widest cell and two spaces apart; the last column is never padded, so nothing trails a line.
 * Times are local, to the second (`tableTime`). Pure: it formats and never writes.
 */

const pad = (value: number) => String(value).padStart(2, '0');

/** `2026-12-01 10:30:05`: a time (milliseconds or an ISO string) in the local time zone. */
export function tableTime(time: number | string): string {
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return String(time);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function plainTable(titles: readonly string[], rows: readonly string[][]): string {
  const widths = titles.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  return [titles.map((title) => title.toUpperCase()), ...rows]
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
