import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SubagentStartRequest } from '../../src/subagent/contract.js';
import { WorkflowError } from '../../src/workflow/contract.js';
import { readStoredRun } from '../../src/workflow/run-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  type EngineFixture,
  echoPrompt,
  engineFixture,
  type FakeAnswer,
  settled,
} from './engine-fixture.js';

function keptFixture(
  home: string,
  respond: (request: SubagentStartRequest) => FakeAnswer | undefined = echoPrompt,
): EngineFixture {
  return engineFixture({ respond, service: { home } });
}

async function completedRun(fixture: EngineFixture, script: string, resumeRunId?: string) {
  const run = fixture.start(script, resumeRunId ? { resumeRunId } : {});
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed', result.error?.message);
  return result;
}

const prompts = (fixture: EngineFixture) =>
  fixture.fake.children.map((child) => child.request.prompt);

test('resume: every journaled call is answered with no child, as a paired, counted, journaled agent', async () => {
  const home = temporaryFolder();
  const script =
    "const a = await agent('one'); const b = await agent('two', { label: 'second' }); return [a, b];";
  const first = keptFixture(home);
  const original = await completedRun(first, script);
  assert.deepEqual(original.value, ['<one>', '<two>']);

  const again = keptFixture(home);
  const resumed = await completedRun(again, script, original.runId);
  assert.equal(resumed.runId, original.runId, 'a resume keeps the run id');
  assert.deepEqual(resumed.value, original.value);
  assert.deepEqual(prompts(again), [], 'no child started');
  assert.equal(resumed.agentsStarted, 2);
  assert.deepEqual(resumed.usage, { input: 0, output: 0 });
  const starts = again.events.of('workflow/agent-start');
  const ends = again.events.of('workflow/agent-end');
  assert.deepEqual(
    starts.map((event) => [event.seq, event.label, event.journaled]),
    [
      [1, 'one', true],
      [2, 'second', true],
    ],
  );
  assert.deepEqual(
    ends.map((event) => [event.seq, event.outcome, event.journaled, event.usage]),
    [
      [1, 'completed', true, { input: 0, output: 0 }],
      [2, 'completed', true, { input: 0, output: 0 }],
    ],
  );

  const stored = readStoredRun(home, original.runId);
  assert.equal(stored.record.status, 'completed');
  assert.equal(stored.record.attempt, 2);
  assert.equal(stored.record.journaled, 2);
  assert.equal(stored.record.agentsStarted, 2);
  const events = readFileSync(join(stored.folder, 'events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
  assert.equal(events.filter((event) => event.type === 'workflow/start').length, 2);
  assert.equal(events.at(-1)?.type, 'workflow/end');
  const result = JSON.parse(readFileSync(join(stored.folder, 'result.json'), 'utf8'));
  assert.deepEqual(result.value, original.value);
});

test('resume: an edited script reruns; unchanged calls hit the journal, new or changed ones run', async () => {
  const home = temporaryFolder();
  const first = keptFixture(home);
  const original = await completedRun(
    first,
    "return [await agent('one'), await agent('two'), await agent('three')];",
  );
  const again = keptFixture(home);
  const resumed = await completedRun(
    again,
    "return [await agent('one'), await agent('two, reworded'), await agent('three'), await agent('four')];",
    original.runId,
  );
  assert.deepEqual(resumed.value, ['<one>', '<two, reworded>', '<three>', '<four>']);
  assert.deepEqual(prompts(again), ['two, reworded', 'four']);
  assert.deepEqual(
    again.events.of('workflow/agent-end').map((event) => event.journaled ?? false),
    [true, false, true, false],
  );
  assert.equal(readStoredRun(home, original.runId).script.includes('reworded'), true);
});

test('resume: identical calls get back their own answers, by occurrence', async () => {
  const home = temporaryFolder();
  let count = 0;
  const first = keptFixture(home, () => {
    count += 1;
    return { output: `answer ${count}` };
  });
  const script = "const a = await agent('same'); const b = await agent('same'); return [a, b];";
  const original = await completedRun(first, script);
  assert.deepEqual(original.value, ['answer 1', 'answer 2']);
  const again = keptFixture(home, () => ({ output: 'a third answer' }));
  const resumed = await completedRun(
    again,
    "const a = await agent('same'); const b = await agent('same'); const c = await agent('same'); return [a, b, c];",
    original.runId,
  );
  assert.deepEqual(resumed.value, ['answer 1', 'answer 2', 'a third answer']);
  assert.equal(again.fake.children.length, 1);
});

test('resume: a call that failed is not journaled and runs again; a structured answer comes back as its value', async () => {
  const home = temporaryFolder();
  const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
  const script = `const shape = await agent('shape', { schema: ${JSON.stringify(schema)} });
const flaky = await agent('flaky');
return { shape, flaky };`;
  const first = keptFixture(home, (request) =>
    request.prompt === 'flaky' ? { error: 'upstream 500' } : { output: '', structured: { n: 7 } },
  );
  const original = await completedRun(first, script);
  assert.deepEqual(original.value, { shape: { n: 7 }, flaky: null });
  const again = keptFixture(home, echoPrompt);
  const resumed = await completedRun(again, script, original.runId);
  assert.deepEqual(resumed.value, { shape: { n: 7 }, flaky: '<flaky>' });
  assert.deepEqual(prompts(again), ['flaky']);
});

test('resume: journaled calls count toward maxTotalAgents', async () => {
  const home = temporaryFolder();
  const first = keptFixture(home);
  const original = await completedRun(first, "return [await agent('a'), await agent('b')];");
  const again = keptFixture(home);
  const run = again.start("return [await agent('a'), await agent('b'), await agent('c')];", {
    resumeRunId: original.runId,
    limits: { maxTotalAgents: 2 },
  });
  const result = await settled(again, run);
  assert.equal(result.error?.code, 'AGENT_CAP');
  assert.deepEqual(prompts(again), []);
  assert.equal(readStoredRun(home, original.runId).record.status, 'error');
});

test('resume: refused for a run still live in this process, an unknown or malformed id, and a service that keeps no runs', async () => {
  const home = temporaryFolder();
  const first = keptFixture(home, () => undefined);
  const live = first.start("return await agent('held');");
  await first.fake.started(1);
  const other = keptFixture(home);
  const refused = (action: () => unknown, pattern: RegExp) =>
    assert.throws(action, (error: unknown) => {
      assert.ok(error instanceof WorkflowError, String(error));
      assert.equal(error.code, 'INVALID_ARGUMENT');
      assert.match(error.message, pattern);
      return true;
    });
  try {
    refused(
      () => other.start('return 1;', { resumeRunId: live.id }),
      /still running in this process/,
    );
    refused(
      () =>
        other.start('return 1;', { resumeRunId: 'workflow-00000000-0000-4000-8000-000000000000' }),
      /no run workflow-0+-0+-4000-8000-0+ in /,
    );
    refused(() => other.start('return 1;', { resumeRunId: '../elsewhere' }), /is not a run id/);
    refused(() => engineFixture().start('return 1;', { resumeRunId: live.id }), /keeps no runs/);
  } finally {
    // Even when a check fails the held run ends, so the test process can exit.
    first.fake.children[0]?.answer({ output: 'done' });
  }
  const result = await settled(first, live);
  assert.equal(result.value, 'done');
  // Once it has ended it can be resumed.
  const resumed = await completedRun(other, "return await agent('held');", live.id);
  assert.equal(resumed.value, 'done');
});

test('resume: a run keeps its token ceiling; a resume without one reuses it, and one given replaces it', async () => {
  const home = temporaryFolder();
  const first = keptFixture(home);
  const original = await completedRun(first, 'return budget.total;', undefined);
  assert.equal(original.value, null);
  const capped = first.start('return budget.total;', { budgetTokens: 5000 });
  const cappedResult = await settled(first, capped);
  assert.equal(cappedResult.value, 5000);
  const again = keptFixture(home);
  const reused = await completedRun(again, 'return budget.total;', cappedResult.runId);
  assert.equal(reused.value, 5000);
  assert.equal(readStoredRun(home, cappedResult.runId).record.budgetTokens, 5000);
  // Each attempt in a fixture of its own: one start/end pair per run id and fixture.
  const third = keptFixture(home);
  const replaced = third.start('return budget.total;', {
    resumeRunId: cappedResult.runId,
    budgetTokens: 7000,
  });
  assert.equal((await settled(third, replaced)).value, 7000);
  assert.equal(readStoredRun(home, cappedResult.runId).record.budgetTokens, 7000);
});

test('resume: the run lock refuses a second process while one holds it, and a dead holder’s lock is taken over', async () => {
  const home = temporaryFolder();
  const fixture = keptFixture(home, () => undefined);
  const live = fixture.start("return await agent('held');");
  await fixture.fake.started(1);
  const lock = join(readStoredRun(home, live.id).folder, 'run.lock');
  const heldWhileRunning = existsSync(lock) ? readFileSync(lock, 'utf8') : 'no lock file';
  fixture.fake.children[0]?.answer({ output: 'done' });
  await settled(fixture, live);
  assert.match(heldWhileRunning, new RegExp(`^${process.pid}\\b`), 'held while it runs');
  assert.equal(existsSync(lock), false, 'let go when the attempt ends');

  // Another live process holds it (as when two resumes race): refused, naming that process.
  writeFileSync(lock, `${process.ppid}\n`);
  const other = keptFixture(home);
  assert.throws(
    () => other.start("return await agent('held');", { resumeRunId: live.id }),
    (error: unknown) =>
      error instanceof WorkflowError &&
      error.message.includes(`running in process ${process.ppid};`) &&
      error.message.includes(lock),
  );
  assert.equal(readFileSync(lock, 'utf8'), `${process.ppid}\n`, 'a live holder keeps its lock');

  // A killed attempt leaves its lock behind: the next resume takes it over.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(lock, `${gone}\n`);
  const resumed = await completedRun(other, "return await agent('held');", live.id);
  assert.equal(resumed.value, 'done');
  assert.deepEqual(prompts(other), [], 'answered from the journal');
  assert.equal(existsSync(lock), false);
});
