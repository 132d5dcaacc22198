/**
 * The scripted model goes through the same retry and failure classification as every provider,
 * through bin/loom: a 503 and a 429 are retried with backoff (a `model/retry` event each, and the
 * "retrying" line on stderr) and the turn completes; a 400 is not retried; a workflow child whose
 * first request got a 503 completes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runScripted, scriptedFolders } from './loom-process.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

interface EventLine {
  type: string;
  data: Record<string, unknown>;
}

function eventLines(stdout: string): EventLine[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EventLine);
}

test('loom run: a scripted 503 and then a 429 are retried with backoff, visible as model/retry events, and the turn completes', async () => {
  const folders = scriptedFolders({
    rules: [
      { when: '^go$', error: 'upstream 503', status: 503, times: 1 },
      { when: '^go$', error: 'slow down', status: 429, times: 1 },
      { when: '^go$', reply: 'done at last' },
    ],
  });
  const run = await runScripted(folders, 'go', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const events = eventLines(run.stdout);
  const retries = events.filter((event) => event.type === 'model/retry');
  assert.deepEqual(
    retries.map(({ data }) => [data.attempt, (data.error as { status?: number }).status]),
    [
      [1, 503],
      [2, 429],
    ],
  );
  for (const { data } of retries) assert.ok((data.delayMs as number) > 0, 'after a backoff');
  const message = events.find((event) => event.type === 'assistant/message');
  assert.equal(message?.data.text, 'done at last');
  assert.equal(message?.data.attempts, 3);

  const plain = await runScripted(
    scriptedFolders({
      rules: [
        { when: '^go$', error: 'upstream 503', status: 503, times: 1 },
        { when: '^go$', reply: 'done' },
      ],
    }),
    'go',
  );
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /attempt 1 failed \(upstream 503\); retrying in \d+ ms/);
  assert.match(plain.stdout, /done/);
});

test('loom run: a scripted 400 is not retried: the turn fails at its first attempt', async () => {
  const folders = scriptedFolders({
    rules: [
      { when: '^go$', error: 'bad request', status: 400, times: 1 },
      { when: '^go$', reply: 'a retry would get this' },
    ],
  });
  const run = await runScripted(folders, 'go', { json: true });
  assert.equal(run.code, 1, run.stderr);
  const events = eventLines(run.stdout);
  assert.equal(events.filter((event) => event.type === 'model/retry').length, 0);
  assert.doesNotMatch(run.stdout, /a retry would get this/);
  const end = events.find((event) => event.type === 'turn/end');
  assert.equal(end?.data.reason, 'error');
  assert.match(JSON.stringify(end?.data), /bad request/);
});

test('workflow run: a child whose scripted model answers 503 once is retried and completes; the run exits 0', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'flaky.js',
    `export const meta = { name: 'flaky', description: 'one child meets a 503' };
return await agent('ask once', { label: 'ask' });
`,
  );
  const model = writeJson(home, 'model.json', {
    rules: [
      { when: '^ask once$', error: 'upstream 503', status: 503, times: 1 },
      { when: '^ask once$', reply: 'answered' },
    ],
  });
  const run = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.value, 'answered');
  assert.deepEqual(result.failures, []);
});
