import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  agentPairs,
  cancelledRun,
  quickAndStuckModel,
  readEvents,
  startScriptedWorkflow,
  writeFile,
} from './workflow-fixture.js';

test('workflow run: SIGINT cancels hung children, exits 130 and leaves a complete events file', async () => {
  const { loom, eventsPath } = startScriptedWorkflow(
    temporaryFolder(),
    {
      name: 'stuck.js',
      script: `export const meta = { name: 'stuck', description: 'Children that never answer', phases: [{ title: 'wait' }] };
phase('wait');
const done = await agent('quick', { label: 'quick' });
const stuck = await pipeline(['a', 'b', 'c'], (item) => agent(\`stuck on \${item}\`, { label: \`stuck \${item}\` }));
return { done, stuck };
`,
      model: quickAndStuckModel,
    },
    ['--max-concurrent', '4', '--json'],
  );
  await loom.waitForStderr(/^agent #\d+ started: stuck /, 3);
  loom.child.kill('SIGINT');
  const { run, result } = await cancelledRun(loom, 130);
  assert.equal(result.value, null);
  assert.equal(result.code, 'CANCELLED');
  assert.equal(result.agentsStarted, 4);
  const failures = result.failures as Array<Record<string, unknown>>;
  assert.deepEqual(failures.map((failure) => failure.label).sort(), [
    'stuck a',
    'stuck b',
    'stuck c',
  ]);
  for (const failure of failures) assert.equal(failure.outcome, 'cancelled');

  const events = readEvents(eventsPath);
  const pairs = agentPairs(events);
  assert.equal(pairs.size, 4);
  for (const [seq, { start, end }] of pairs) {
    assert.ok(end, `agent ${seq} (${start.label}) has an agent-end`);
    assert.equal(end.outcome, start.label === 'quick' ? 'completed' : 'cancelled');
  }
  const last = events.at(-1);
  assert.equal(last?.type, 'workflow/end');
  assert.equal(last?.stopReason, 'cancelled');
  assert.equal(last?.agentsStarted, 4);
  assert.match(run.stderr, /cancelling/);
  assert.match(run.stderr, /^workflow stuck cancelled in /m);
});

/** A script that spins after its one agent has answered, so only the process can end it. */
const spinAfterOneAgent = {
  name: 'spin.js',
  script: `export const meta = { name: 'spin', description: 'Spins after one agent' };
await agent('warm up', { label: 'warm up' });
for (;;) {}
`,
  model: { rules: [], default: { reply: 'ok' } },
};

test('workflow run: a second SIGINT exits 130 at once, even while the script spins', async () => {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', 'workflow:\n  cancelGraceMs: 600000\n');
  const { loom, eventsPath } = startScriptedWorkflow(home, spinAfterOneAgent);
  await loom.waitForStderr(/^agent #1 completed: warm up/);
  loom.child.kill('SIGINT');
  await loom.waitForStderr(/cancelling/);
  loom.child.kill('SIGINT');
  const run = await loom.exited;
  assert.equal(run.code, 130, run.stderr);
  const events = readEvents(eventsPath);
  assert.deepEqual(
    events.map((event) => event.type),
    ['workflow/start', 'workflow/agent-start', 'workflow/agent-end', 'workflow/end'],
  );
  assert.equal(events.at(-1)?.stopReason, 'cancelled');
});

test('workflow run: a script that spins through SIGINT is stopped after the grace period', async () => {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', 'workflow:\n  cancelGraceMs: 200\n');
  const { loom, eventsPath } = startScriptedWorkflow(home, spinAfterOneAgent, ['--json']);
  await loom.waitForStderr(/^agent #1 completed: warm up/);
  loom.child.kill('SIGINT');
  const { result } = await cancelledRun(loom, 130);
  assert.equal(result.agentsStarted, 1);
  const events = readEvents(eventsPath);
  assert.equal(events.at(-1)?.type, 'workflow/end');
  assert.equal(events.at(-1)?.stopReason, 'cancelled');
});
