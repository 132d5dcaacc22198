// Runs every test/**/*.test.ts through node:test with tsx (Node 20's --test takes no globs), three
// files at a time: most files wait on child processes and sockets, so a third file keeps the two
// cores busy (the whole pass: 3 min 17 s at two, 2 min 57 s at three, 2 min 56 s at four).
// Extra arguments narrow the run to files whose path contains one of them.
// `--isolated=FILTER` also runs the files matching FILTER a second time on the isolated workflow
// engine (LOOM_TEST_WORKFLOW_ENGINE=isolated), alongside the first pass: its report is held back
// and printed when the first pass ends, so the two never interleave, and the exit status fails
// if either pass failed. Each pass reports in TAP; its own closing summary (`# tests N` …) is
// taken out and ONE summary of both passes closes the output (scripts/test-summary.mjs).
// `--durations[=N]` lists the N (default 10) slowest files of each pass before that summary: each
// file's wall time, recorded by scripts/test-durations.mjs, a second reporter beside TAP.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { combineSummaries, formatSummary, summaryFilter } from './test-summary.mjs';

const CONCURRENCY = process.env.TEST_CONCURRENCY ?? '3';

function collect(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return collect(path);
    return entry.name.endsWith('.test.ts') || entry.name.endsWith('.test.tsx') ? [path] : [];
  });
}

const all = collect('test').sort();
const matching = (filters) =>
  all.filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));

const isolatedFilters = process.argv
  .slice(2)
  .filter((arg) => arg.startsWith('--isolated='))
  .map((arg) => arg.slice('--isolated='.length));
const durationsArgument = process.argv
  .slice(2)
  .find((arg) => arg === '--durations' || arg.startsWith('--durations='));
const slowestShown = durationsArgument?.includes('=')
  ? Number(durationsArgument.slice('--durations='.length))
  : 10;
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const durationsFolder = durationsArgument
  ? mkdtempSync(join(tmpdir(), 'loom-test-durations-'))
  : undefined;

/**
 * A test file still running after this long is cancelled and counts as failed: a test that waits
 * for something that never comes (a line from a command refused where bwrap is missing, say)
 * fails the run instead of hanging it. The slowest file takes about 80 s on 2 busy cores.
 */
const FILE_TIMEOUT_MS = 600_000;

/**
 * One node --test run over `files`; resolves with its exit status, its summary and, when held,
 * its output. Its stdout is shown (or held) without its summary lines; stderr is passed on.
 */
function testRun(files, { env = process.env, hold = false, durations } = {}) {
  const reporters = durations
    ? [
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        '--test-reporter=./scripts/test-durations.mjs',
        `--test-reporter-destination=${durations}`,
      ]
    : ['--test-reporter=tap'];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      ...reporters,
      `--test-concurrency=${CONCURRENCY}`,
      `--test-timeout=${FILE_TIMEOUT_MS}`,
      ...files,
    ],
    { env, stdio: ['ignore', 'pipe', hold ? 'pipe' : 'inherit'] },
  );
  const held = [];
  const filter = summaryFilter();
  const show = (text) => {
    if (text === '') return;
    if (hold) held.push(text);
    else process.stdout.write(text);
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => show(filter.write(chunk)));
  if (hold) child.stderr.on('data', (chunk) => held.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      show(filter.end());
      resolve({ status: code ?? (signal ? 1 : 0), held, summary: filter.summary });
    });
  });
}

const durationsFile = (pass) => durationsFolder && join(durationsFolder, `${pass}.jsonl`);
const runs = [testRun(matching(filters), { durations: durationsFile('first') })];
if (isolatedFilters.length > 0) {
  const env = { ...process.env, LOOM_TEST_WORKFLOW_ENGINE: 'isolated' };
  runs.push(
    testRun(matching(isolatedFilters), { env, hold: true, durations: durationsFile('isolated') }),
  );
}
/** The `count` longest of the durations written to `file`, longest first. */
function slowestFiles(file, count) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
    .sort((left, right) => right.ms - left.ms)
    .slice(0, count);
}

const [first, isolated] = await Promise.all(runs);
if (isolated) {
  process.stdout.write('\n# The workflow engine tests again, on the isolated engine:\n');
  for (const chunk of isolated.held) process.stdout.write(chunk);
}
if (durationsFolder) {
  for (const pass of isolated ? ['first', 'isolated'] : ['first']) {
    process.stdout.write(`# The ${slowestShown} slowest files of the ${pass} pass (wall time):\n`);
    for (const { file, ms } of slowestFiles(durationsFile(pass), slowestShown)) {
      process.stdout.write(`#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${relative('.', file)}\n`);
    }
  }
  rmSync(durationsFolder, { recursive: true, force: true });
}
if (isolated) process.stdout.write('\n# Both passes:\n');
const passes = isolated ? [first, isolated] : [first];
process.stdout.write(formatSummary(combineSummaries(passes.map((pass) => pass.summary))));
process.exitCode = Math.max(first.status, isolated?.status ?? 0);
