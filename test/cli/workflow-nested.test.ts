import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  agentPairs,
  parseResult,
  readEvents,
  runWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

/** A workflow file with a Claude Code header, in `folder`. */
function workflowFile(folder: string, name: string, body: string): void {
  writeFile(
    folder,
    `${name}.js`,
    `export const meta = { name: '${name}', description: 'workflow ${name}' };\n${body}\n`,
  );
}

/**
 * A home with the scripted model, and `flows/` holding the workflows: the process runs in the
 * home, so a relative `workflow()` target is found only through the script's own folder.
 */
function setup() {
  const home = temporaryFolder('loom-nested-cli-');
  const flows = join(home, 'flows');
  mkdirSync(flows);
  const model = writeJson(home, 'model.json', {
    rules: [{ when: '^audit (.*)', reply: 'no issues in {{1}}' }],
  });
  return { home, flows, model, events: join(home, 'events.ndjson') };
}

test('ACCEPTANCE: workflow() nested twice (a.js -> b.js -> c.js by relative path) fails with NESTING_LIMIT', async () => {
  const { home, flows, model, events } = setup();
  workflowFile(flows, 'a', `return await workflow('./b.js', { from: 'a' });`);
  workflowFile(flows, 'b', `log('b runs'); return await workflow('./c.js');`);
  workflowFile(flows, 'c', `return await agent('audit c');`);
  const run = await runWorkflow(
    ['run', join('flows', 'a.js'), '--model', `scripted:${model}`, '--json', '--events', events],
    { home },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'NESTING_LIMIT');
  assert.match(
    String(result.error),
    /workflow\("\.\/c\.js"\) was called inside the nested workflow "b"/,
  );
  assert.equal(result.agentsStarted, 0);
  const lines = readEvents(events);
  assert.deepEqual(
    lines
      .filter((line) => line.type === 'workflow/log')
      .map(({ message, workflow }) => ({ message, workflow })),
    [{ message: 'b runs', workflow: 'b' }],
  );
  assert.equal(lines.at(-1)?.type, 'workflow/end');
});

test('workflow() one level deep returns the nested value; its agents carry its name', async () => {
  const { home, flows, model, events } = setup();
  workflowFile(
    flows,
    'a',
    `const inner = await workflow('./c.js', { topic: 'payments' });
     const own = await agent('audit a');
     return { inner, own };`,
  );
  workflowFile(flows, 'c', `return await agent('audit ' + args.topic, { label: 'audit' });`);
  const run = await runWorkflow(
    ['run', join('flows', 'a.js'), '--model', `scripted:${model}`, '--json', '--events', events],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, { inner: 'no issues in payments', own: 'no issues in a' });
  assert.equal(result.agentsStarted, 2);
  const pairs = [...agentPairs(readEvents(events)).values()];
  assert.deepEqual(
    pairs.map(({ start, end }) => [start.seq, start.label, start.workflow, end?.workflow]),
    [
      [1, 'audit', 'c', 'c'],
      [2, 'audit a', undefined, undefined],
    ],
  );
});

test('workflow(NAME) inside a script runs the saved workflow of that name, the project one first', async () => {
  const { home, flows, model } = setup();
  // The process runs in `home`: it is both the project (`.loom/workflows`) and LOOM_HOME.
  const project = join(home, '.loom', 'workflows');
  const personal = join(home, 'workflows');
  mkdirSync(project, { recursive: true });
  mkdirSync(personal);
  workflowFile(project, 'review', `return await agent('audit ' + args.topic);`);
  workflowFile(personal, 'review', `return 'the personal one';`);
  workflowFile(personal, 'summary', `return 'summary of ' + args.of;`);
  workflowFile(
    flows,
    'a',
    `const review = await workflow('review', { topic: 'billing' });
     const summary = await workflow('summary', { of: review });
     return { review, summary };`,
  );
  const run = await runWorkflow(
    ['run', join('flows', 'a.js'), '--model', `scripted:${model}`, '--json'],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(parseResult(run).value, {
    review: 'no issues in billing',
    summary: 'summary of no issues in billing',
  });
});
