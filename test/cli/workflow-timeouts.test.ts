import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { agentPairs, parseResult, readEvents, startScriptedWorkflow } from './workflow-fixture.js';

// A prompt starting `stuck` gets a model request that never answers (the scripted `hang`).
const MODEL = {
  rules: [
    { when: '^stuck', hang: true },
    { when: '^check (\\S+)', reply: 'ok {{1}}' },
  ],
};

const SCRIPT = (
  options: string,
) => `export const meta = { name: 'limits', description: 'One child never answers' };
return await parallel([
  () => agent('check a'),
  () => agent('stuck b', { label: 'stuck b'${options} }),
  () => agent('check c'),
]);
`;

/** The script returns with the stuck child failed: completed with a failed agent, exit 3. */
async function finished(loom: ReturnType<typeof startScriptedWorkflow>['loom']) {
  const run = await loom.exited;
  assert.equal(run.code, 3, run.stderr);
  return { run, result: parseResult(run) };
}

test('workflow run: timeoutMs fails the hanging child with reason timeout; the others complete', async () => {
  const home = temporaryFolder();
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    { name: 'limits.js', script: SCRIPT(', timeoutMs: 300'), model: MODEL },
    ['--json'],
  );
  const { run, result } = await finished(loom);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, ['ok a', null, 'ok c']);
  assert.deepEqual(result.failures, [
    { seq: 2, label: 'stuck b', outcome: 'failed', reason: 'timeout' },
  ]);
  assert.match(run.stderr, /^agent #2 failed: stuck b.*timeout/m);
  const events = readEvents(eventsPath);
  assert.deepEqual(
    [...agentPairs(events).values()].filter((pair) => !pair.end),
    [],
    'every agent-start has its agent-end',
  );
  const ends = events.filter((event) => event.type === 'workflow/agent-end');
  assert.deepEqual(ends.map((event) => [event.seq, event.outcome, event.reason]).sort(), [
    [1, 'completed', undefined],
    [2, 'failed', 'timeout'],
    [3, 'completed', undefined],
  ]);
});

test('workflow run: workflow.stallMs from config fails a child whose model is silent with reason stalled', async () => {
  const home = temporaryFolder();
  // Long enough for the answering children to reach their model on a loaded machine.
  writeFileSync(join(home, 'config.yaml'), 'workflow:\n  stallMs: 2000\n');
  const { loom } = startScriptedWorkflow(
    home,
    { name: 'limits.js', script: SCRIPT(''), model: MODEL },
    ['--json'],
  );
  const { result } = await finished(loom);
  assert.deepEqual(result.value, ['ok a', null, 'ok c']);
  assert.deepEqual(result.failures, [
    { seq: 2, label: 'stuck b', outcome: 'failed', reason: 'stalled' },
  ]);
});
