// Runs every test/**/*.test.ts through node:test with tsx (Node 20's --test takes no globs).
// Extra arguments narrow the run to files whose path contains one of them.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function collect(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return collect(path);
    return entry.name.endsWith('.test.ts') || entry.name.endsWith('.test.tsx') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = collect('test')
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
