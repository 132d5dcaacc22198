import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { journalLine } from '../../src/workflow/journal-lines.js';
import { resolveLimits } from '../../src/workflow/limits.js';
import {
  checkRunId,
  createRunFolder,
  listRuns,
  RUN_FORMAT_VERSION,
  type RunRecord,
  readStoredRun,
  runFolder,
  writeRunRecord,
} from '../../src/workflow/run-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const RUN_A = 'workflow-00000000-0000-4000-8000-00000000000a';
const RUN_B = 'workflow-00000000-0000-4000-8000-00000000000b';

function recordOf(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    version: RUN_FORMAT_VERSION,
    runId,
    name: 'kept',
    status: 'running',
    attempt: 1,
    pid: process.pid,
    limits: resolveLimits(undefined),
    budgetTokens: null,
    startedAt: 1000,
    attemptStartedAt: 1000,
    agentsStarted: 0,
    journaled: 0,
    tokens: { input: 0, output: 0 },
    ...overrides,
  };
}

const meta = { name: 'kept', description: 'a kept run' };

test('run store: a new folder appears complete, with script, meta, args, run.json and an empty journal', () => {
  const home = temporaryFolder();
  const folder = createRunFolder({
    home,
    record: recordOf(RUN_A),
    meta,
    script: 'return 1;',
    args: { topic: 'x' },
  });
  assert.equal(folder, runFolder(home, RUN_A));
  assert.deepEqual(readdirSync(join(home, 'runs')), [RUN_A], 'no building folder is left');
  assert.deepEqual(readdirSync(folder).sort(), [
    'args.json',
    'journal.ndjson',
    'meta.json',
    'run.json',
    'script.js',
  ]);
  assert.equal(readFileSync(join(folder, 'journal.ndjson'), 'utf8'), '');
  const stored = readStoredRun(home, RUN_A);
  assert.equal(stored.script, 'return 1;');
  assert.deepEqual(stored.meta, meta);
  assert.deepEqual(stored.args, { topic: 'x' });
  assert.equal(stored.record.status, 'running');
});

test('run store: a run id is checked before any path is made from it', () => {
  const home = temporaryFolder();
  for (const bad of ['../../etc', 'workflow-../../x', `${RUN_A}/..`, '']) {
    assert.throws(
      () => readStoredRun(home, bad),
      (error: unknown) =>
        error instanceof WorkflowError &&
        error.code === 'INVALID_ARGUMENT' &&
        /is not a run id/.test(error.message),
    );
  }
  assert.equal(checkRunId(RUN_A), RUN_A);
  assert.equal(existsSync(join(home, 'runs')), false);
  assert.throws(() => readStoredRun(home, RUN_B), /no run workflow-.*b in .*runs/);
});

test('run store: runs are listed newest first; a running run whose process is gone is interrupted', () => {
  const home = temporaryFolder();
  // A process that has exited: its pid is gone.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  assert.ok(gone !== undefined);
  const folderA = createRunFolder({
    home,
    record: recordOf(RUN_A, { pid: gone, tokens: { input: 100, output: 10 } }),
    meta,
    script: '',
    args: {},
  });
  // The killed attempt completed two calls: the list reads its progress from the journal.
  const line = (time: number) =>
    journalLine({
      key: 'k',
      n: time,
      kind: 'text',
      value: 'v',
      usage: { input: 5, output: 1 },
      label: 'l',
      time,
    });
  writeFileSync(join(folderA, 'journal.ndjson'), `${line(500)}${line(1500)}${line(1600)}`);
  const folderB = createRunFolder({
    home,
    record: recordOf(RUN_B, { startedAt: 2000 }),
    meta,
    script: '',
    args: {},
  });
  let runs = listRuns(home);
  assert.deepEqual(
    runs.map((run) => [run.runId, run.state]),
    [
      [RUN_B, 'running'],
      [RUN_A, 'interrupted'],
    ],
  );
  // Three calls are kept; the one from before this attempt (time 500) was paid for already.
  assert.equal(runs[1]?.agentsStarted, 3);
  assert.deepEqual(runs[1]?.tokens, { input: 110, output: 12 });
  writeRunRecord(folderB, recordOf(RUN_B, { startedAt: 2000, status: 'error', code: 'AGENT_CAP' }));
  runs = listRuns(home);
  assert.equal(runs[0]?.state, 'error');
  assert.equal(runs[0]?.code, 'AGENT_CAP');
  assert.deepEqual(listRuns(temporaryFolder()), []);
});
