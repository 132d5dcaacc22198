import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type JournalDisk,
  type JournalRecord,
  journalKey,
  journalLine,
  RunJournal,
  realDisk,
} from '../../src/workflow/run-journal.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { deferred, echoPrompt, engineFixture, settled } from './engine-fixture.js';

const record = (key: string, n: number, value: unknown): JournalRecord => ({
  key,
  n,
  kind: typeof value === 'string' ? 'text' : 'schema',
  value,
  usage: { input: 1, output: 2 },
  label: key,
  time: 1,
});

test('journal key: options in any key order hash alike; prompt, options and nested workflow tell calls apart', () => {
  const base = journalKey({
    prompt: 'p',
    options: {
      label: 'a',
      schema: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } },
    },
  });
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(
    journalKey({
      prompt: 'p',
      options: {
        schema: { properties: { x: { type: 'string' } }, required: ['x'], type: 'object' },
        label: 'a',
      },
    }),
    base,
  );
  assert.notEqual(journalKey({ prompt: 'p', options: { label: 'b' } }), base);
  assert.notEqual(
    journalKey({ prompt: 'p ', options: { label: 'a' } }),
    journalKey({ prompt: 'p', options: { label: 'a' } }),
  );
  assert.notEqual(
    journalKey({ prompt: 'p', options: { model: 'x:y' } }),
    journalKey({ prompt: 'p', options: {} }),
  );
  assert.notEqual(
    journalKey({ prompt: 'p', options: {}, workflow: 'inner' }),
    journalKey({ prompt: 'p', options: {} }),
  );
  // An absent option and an undefined one are the same call.
  assert.equal(
    journalKey({ prompt: 'p', options: { label: undefined } }),
    journalKey({ prompt: 'p', options: {} }),
  );
});

test('journal: identical calls are numbered in order; records of earlier attempts are found by key and occurrence', async () => {
  const path = join(temporaryFolder(), 'journal.ndjson');
  const first = new RunJournal(path);
  assert.equal(first.occurrence('k'), 1);
  assert.equal(first.occurrence('k'), 2);
  assert.equal(first.occurrence('other'), 1);
  await Promise.all([first.record(record('k', 1, 'one')), first.record(record('k', 2, 'two'))]);
  await first.close();

  const second = new RunJournal(path);
  assert.equal(second.size, 2);
  assert.equal(second.lookup('k', 1, 'text')?.value, 'one');
  assert.equal(second.lookup('k', 2, 'text')?.value, 'two');
  assert.equal(second.lookup('k', 3, 'text'), undefined);
  assert.equal(second.lookup('other', 1, 'text'), undefined);
  await second.close();
});

test('journal: a torn last line is dropped and cut off, and the next line starts clean', async () => {
  const path = join(temporaryFolder(), 'journal.ndjson');
  const whole = journalLine(record('a', 1, 'kept'));
  writeFileSync(path, `${whole}{"key":"b","n":1,"val`);
  const journal = new RunJournal(path);
  assert.equal(journal.size, 1);
  assert.equal(
    readFileSync(path, 'utf8'),
    whole,
    'the torn tail is cut before anything is appended',
  );
  await journal.record(record('c', 1, 'new'));
  await journal.close();
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  assert.equal(lines.length, 2);
  assert.equal((JSON.parse(lines[1] ?? '') as JournalRecord).value, 'new');
});

test('journal: records of one turn share one write and one sync; record resolves only after the sync', async () => {
  const path = join(temporaryFolder(), 'journal.ndjson');
  const writes: number[] = [];
  const sync = deferred();
  const syncStarted = deferred();
  let syncs = 0;
  const disk: JournalDisk = {
    async write(descriptor, bytes) {
      writes.push(bytes.toString().trim().split('\n').length);
      await realDisk.write(descriptor, bytes);
    },
    sync: async () => {
      syncs += 1;
      syncStarted.resolve();
      await sync.promise;
    },
  };
  const journal = new RunJournal(path, { disk });
  let resolved = 0;
  const pending = [1, 2, 3].map((n) =>
    journal.record(record('k', n, n)).then(() => {
      resolved += 1;
    }),
  );
  // The group is written, then held at its sync.
  await syncStarted.promise;
  assert.deepEqual(writes, [3]);
  assert.equal(resolved, 0);
  sync.resolve();
  await Promise.all(pending);
  assert.equal(resolved, 3);
  assert.equal(syncs, 1);
  await journal.close();
});

test('journal: a failing disk is reported once, and the calls go on unrecorded', async () => {
  const reports: string[] = [];
  const journal = new RunJournal(join(temporaryFolder(), 'journal.ndjson'), {
    disk: {
      write: async () => {
        throw new Error('no space left on device');
      },
      sync: async () => {},
    },
    onFailure: (message) => reports.push(message),
  });
  await journal.record(record('k', 1, 1));
  await journal.record(record('k', 2, 2));
  await journal.close();
  assert.equal(reports.length, 1);
  assert.match(reports[0] ?? '', /no space left on device/);
});

test('engine: a completed agent is ended, answered and frees its slot only once its journal line is durable', async () => {
  const sync = deferred();
  const syncStarted = deferred();
  const fixture = engineFixture({
    respond: echoPrompt,
    limits: { maxConcurrentAgents: 1 },
    service: {
      home: temporaryFolder(),
      journalDisk: {
        write: realDisk.write,
        sync: async (descriptor) => {
          syncStarted.resolve();
          await sync.promise;
          await realDisk.sync(descriptor);
        },
      },
    },
  });
  const run = fixture.start(
    "const first = agent('one'); const second = agent('two'); return [await first, await second];",
  );
  // The first child has answered; its line is held at its sync: it has not ended, and with one
  // slot the second child has not started.
  await fixture.fake.started(1);
  await syncStarted.promise;
  assert.equal(fixture.fake.children[0]?.settled, true);
  assert.equal(fixture.events.of('workflow/agent-end').length, 0);
  assert.equal(fixture.fake.children.length, 1);
  assert.equal(fixture.events.of('workflow/agent-start').length, 1);
  sync.resolve();
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, ['<one>', '<two>']);
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map((event) => event.outcome),
    ['completed', 'completed'],
  );
});

test('journal: a line whose value, usage, kind, label or time changed fails its checksum and is named, never looked up', () => {
  const path = join(temporaryFolder(), 'journal.ndjson');
  const sound = record('k', 1, 'one');
  const changes: Array<Partial<JournalRecord>> = [
    { value: 'other' },
    { usage: { input: 1, output: 3 } },
    { kind: 'schema' },
    { label: 'other' },
    { time: 2 },
  ];
  const line = JSON.parse(journalLine(sound)) as Record<string, unknown>;
  const tampered = changes.map((change) =>
    JSON.stringify({ ...line, ...change, check: line.check }),
  );
  writeFileSync(path, `${journalLine(sound)}${tampered.join('\n')}\n`);
  const journal = new RunJournal(path);
  assert.equal(journal.size, 1);
  assert.deepEqual(
    journal.warnings,
    [2, 3, 4, 5, 6].map(
      (n) =>
        `journal line ${n} fails its checksum (it was changed after it was written); the call runs again instead of being replayed`,
    ),
  );
  assert.equal(journal.lookup('k', 1, 'text')?.value, 'one');
  journal.closeNow();
});
