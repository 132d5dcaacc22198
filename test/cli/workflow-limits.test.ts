import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  agentPairs,
  parseResult,
  quickAndStuckModel,
  readEvents,
  startScriptedWorkflow,
  writeFile,
} from './workflow-fixture.js';

test('workflow run: config workflow.maxRunMs ends a run whose children hang with RUN_TIMEOUT', async () => {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', 'workflow:\n  maxRunMs: 1500\n');
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    {
      name: 'stuck.js',
      script: `export const meta = { name: 'stuck', description: 'Children that never answer' };
return await parallel(['a', 'b'].map((item) => () => agent(\`stuck on \${item}\`, { label: \`stuck \${item}\` })));
`,
      model: quickAndStuckModel,
    },
    ['--json'],
  );
  const run = await loom.exited;
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'RUN_TIMEOUT');
  assert.match(String(result.error), /time limit of 1500 ms \(maxRunMs\)/);
  const events = readEvents(eventsPath);
  const pairs = agentPairs(events);
  for (const [seq, { start, end }] of pairs) {
    assert.ok(end, `agent ${seq} (${start.label}) has an agent-end`);
    assert.equal(end.outcome, 'cancelled');
  }
  const last = events.at(-1);
  assert.equal(last?.type, 'workflow/end');
  assert.equal(last?.stopReason, 'error');
});

test('workflow run: config workflow.maxResultBytes refuses a larger return value with RESULT_TOO_LARGE', async () => {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', 'workflow:\n  maxResultBytes: 2048\n');
  const { loom } = startScriptedWorkflow(
    home,
    {
      name: 'big.js',
      script: `export const meta = { name: 'big', description: 'Returns too much' };
const answer = await agent('quick');
return Array.from({ length: 1000 }, () => answer);
`,
      model: quickAndStuckModel,
    },
    ['--json'],
  );
  const run = await loom.exited;
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.code, 'RESULT_TOO_LARGE');
  assert.match(String(result.error), /larger than 2048 bytes as JSON \(maxResultBytes\)/);
});
