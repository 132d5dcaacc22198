/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command line), prints one
 * table and writes the rows as JSON to bench/results/latest.json. Benchmarks measure; they never
 * assert. A bench file's default export returns its rows.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, such as "< 1 ms". */
  target?: string;
  /** Whether the figure meets the target; absent when there is none. */
  ok?: boolean;
}

const folder = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(folder)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

const rows: BenchRow[] = [];
for (const file of files) {
  const module = (await import(pathToFileURL(join(folder, file)).href)) as {
    default: () => Promise<BenchRow[]>;
  };
  rows.push(...(await module.default()));
}

// NaN: a row that was skipped (its name says why).
const format = (value: number) =>
  Number.isNaN(value) ? '-' : Number.isInteger(value) ? String(value) : value.toFixed(3);
const table = rows.map((row) => [
  row.name,
  `${format(row.value)} ${row.unit}`,
  row.target ?? '',
  row.ok === undefined ? '' : row.ok ? 'ok' : 'MISSED',
]);
const header = ['benchmark', 'figure', 'target', ''];
const widths = header.map((title, column) =>
  Math.max(title.length, ...table.map((cells) => (cells[column] ?? '').length)),
);
const line = (cells: string[]) =>
  cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
process.stdout.write(`${line(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}\n`);
for (const cells of table) process.stdout.write(`${line(cells)}\n`);

const resultsFolder = join(folder, 'results');
mkdirSync(resultsFolder, { recursive: true });
const output = { node: process.version, date: new Date().toISOString(), rows };
writeFileSync(join(resultsFolder, 'latest.json'), `${JSON.stringify(output, null, 2)}\n`);
process.stdout.write(`\nwrote ${join('bench', 'results', 'latest.json')}\n`);
