import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type JournalRecord, journalLine } from '../../src/workflow/journal-lines.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

/** Eight calls one after another, so the journal's lines are in call order: a-f, g (schema), h. */
const SCRIPT = `export const meta = { name: 'eight', description: 'eight agents in order' };
const out = [];
for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) out.push(await agent('task ' + name));
out.push(await agent('shape g', {
  schema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
}));
out.push(await agent('task h'));
return out;
`;

const modelAnswering = (word: string) => ({
  rules: [
    { when: '^task (\\w)$', reply: `${word} {{1}}` },
    { when: '^shape', output: { x: word } },
  ],
});

/** A completed run of SCRIPT whose answers all say `first`; its id and journal's path. */
async function firstRun(home: string): Promise<{ runId: string; journal: string }> {
  const script = writeFile(home, 'eight.js', SCRIPT);
  const model = writeJson(home, 'first.json', modelAnswering('first'));
  const run = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(result.value, [
    'first a',
    'first b',
    'first c',
    'first d',
    'first e',
    'first f',
    { x: 'first' },
    'first h',
  ]);
  const runId = result.runId as string;
  return { runId, journal: join(home, 'runs', runId, 'journal.ndjson') };
}

/** Resumes `runId` with a model whose answers all say `second`: a call that says so ran live. */
async function resume(home: string, runId: string) {
  const model = writeJson(home, 'second.json', modelAnswering('second'));
  const run = await runWorkflow(
    ['run', '--resume', runId, '--model', `scripted:${model}`, '--json'],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  return { run, result: parseResult(run) };
}

function journalRecords(path: string): JournalRecord[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const { check: _check, ...record } = JSON.parse(line) as JournalRecord & { check: string };
      return record;
    });
}

test('workflow run --resume: journal lines that fail their checksum, duplicates, garbage, a torn line and a kind that contradicts the call are each named (run id, line, why) and their calls run live', async () => {
  const home = temporaryFolder();
  const { runId, journal } = await firstRun(home);
  const records = journalRecords(journal);
  assert.equal(records.length, 8);
  const lines = readFileSync(journal, 'utf8').trim().split('\n');
  const [a, b, c, d, , f, g, h] = records as [JournalRecord, ...JournalRecord[]] & JournalRecord[];
  assert.ok(a && b && c && d && f && g && h);
  const tampered = [
    journalLine(a).trim(),
    // b: a changed value under the old checksum.
    JSON.stringify({ ...JSON.parse(lines[1] ?? ''), value: 'forged b' }),
    // c: forged usage under the old checksum.
    JSON.stringify({ ...JSON.parse(lines[2] ?? ''), usage: { input: 999_999, output: 0 } }),
    lines[3] ?? '',
    // e: garbage.
    'this is not a journal line',
    // f: a schema value for a text call, with a checksum that holds.
    journalLine({ ...f, kind: 'schema', value: { x: 'forged f' } }).trim(),
    journalLine(g).trim(),
    // h: an object that says it is text, with a checksum that holds.
    journalLine({ ...h, value: { x: 'forged h' } }).trim(),
    // d again, answering otherwise: a duplicate.
    journalLine({ ...d, value: 'forged d' }).trim(),
  ];
  writeFileSync(journal, `${tampered.join('\n')}\n`);
  // A torn last line, as a crash mid-write leaves it.
  appendFileSync(journal, '{"key":"abc","n":1,"val');

  const { run, result } = await resume(home, runId);
  assert.deepEqual(result.value, [
    'first a',
    'second b',
    'second c',
    'second d',
    'second e',
    'second f',
    { x: 'first' },
    'second h',
  ]);
  const warned = (line: number, why: RegExp) =>
    assert.match(
      run.stderr,
      new RegExp(`run ${runId}: journal line ${line} ${why.source}.*the call runs again`),
      run.stderr,
    );
  warned(2, /fails its checksum/);
  warned(3, /fails its checksum/);
  warned(5, /is not JSON/);
  warned(6, /holds a schema value but its call asks for text/);
  warned(8, /is not a journal record: it says text but holds a JSON object/);
  warned(9, /records the same call as line 4 \(a duplicate\)/);
  warned(10, /is torn/);
  assert.doesNotMatch(run.stderr, /journal line (1|4|7) /, 'sound lines are not named');
  const kept = JSON.parse(readFileSync(join(home, 'runs', runId, 'run.json'), 'utf8'));
  assert.equal(kept.journaled, 2, 'only a and g were replayed');
});

test('workflow run --resume: a journal without checksums (an earlier Loom) is named in one warning and every call runs live', async () => {
  const home = temporaryFolder();
  const { runId, journal } = await firstRun(home);
  const old = journalRecords(journal).map(({ kind: _kind, ...record }) => JSON.stringify(record));
  writeFileSync(journal, `${old.join('\n')}\n`);

  const { run, result } = await resume(home, runId);
  assert.deepEqual(result.value, [
    'second a',
    'second b',
    'second c',
    'second d',
    'second e',
    'second f',
    { x: 'second' },
    'second h',
  ]);
  const warnings = run.stderr.split('\n').filter((line) => line.includes('journal line'));
  assert.equal(warnings.length, 1, run.stderr);
  assert.match(
    warnings[0] ?? '',
    new RegExp(
      `run ${runId}: journal lines 1, 2, 3, 4, 5, 6, 7, 8 carry no checksum .*their calls run again`,
    ),
  );
});
