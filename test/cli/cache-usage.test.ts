/**
 * `--json` carries the cache reads and writes a provider reported (SPEC §3): `loom run --json`
 * in each request's and the turn's usage, `loom workflow run --json` in the run's and each
 * agent's `tokens`. Driven through bin/loom with a scripted model that reports them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runScripted, scriptedFolders } from './loom-process.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

/** What the scripted model reports (SPEC §3 `usage`), and the same as the seam's Usage. */
const REPORTED = { input: 1200, output: 30, cacheRead: 1000, cacheWrite: 100 };
const USAGE = { input: 1200, output: 30, cachedInput: 1000, cacheWrite: 100 };

test('loom run --json: the request and the turn carry cachedInput and cacheWrite', async () => {
  const folders = scriptedFolders({ default: { reply: 'cached answer', usage: REPORTED } });
  const result = await runScripted(folders, 'hello', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: { usage?: unknown } });
  const usageOf = (type: string) =>
    events.filter((event) => event.type === type).map((event) => event.data.usage);
  assert.deepEqual(usageOf('assistant/message'), [USAGE]);
  assert.deepEqual(usageOf('turn/end'), [USAGE]);
});

test('loom workflow run --json: the run and each agent carry cachedInput and cacheWrite when reported', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'two.js',
    `export const meta = { name: 'two', description: 'one cached agent, one plain' };
return [await agent('cached'), await agent('plain')];
`,
  );
  const model = writeJson(home, 'model.json', {
    rules: [
      { when: '^cached$', reply: 'a', usage: REPORTED },
      { when: '^plain$', reply: 'b', usage: { input: 50, output: 5 } },
    ],
  });
  const run = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(result.tokens, { input: 1250, output: 35, cachedInput: 1000, cacheWrite: 100 });
  const agents = result.agents as Array<{ label: string; tokens: unknown }>;
  assert.deepEqual(
    agents.map((agent) => [agent.label, agent.tokens]),
    [
      ['cached', USAGE],
      ['plain', { input: 50, output: 5 }],
    ],
  );
});
