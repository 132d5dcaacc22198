import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFile } from '../cli/workflow-fixture.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

/** A workflow file with a Claude Code header. */
function workflowFile(
  folder: string,
  file: string,
  meta: Record<string, unknown>,
  body: string,
): string {
  return writeFile(
    folder,
    file,
    `export const meta = ${JSON.stringify({ description: 'a nested workflow', ...meta })};\n${body}\n`,
  );
}

/**
 * A project folder with `flows/`: the top script's folder, where relative targets are found. The
 * services run in `root` (their workspace): a script may run only files inside it.
 */
function project() {
  const root = temporaryFolder('loom-nested-');
  const flows = join(root, 'flows');
  mkdirSync(flows);
  return { root, flows, scriptPath: join(flows, 'top.js') };
}

test("a nested workflow's value is the call's value; its agents, phases and logs carry its name and use its phase models", async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(
    flows,
    'b.js',
    { name: 'inner flow', phases: [{ title: 'Inner', model: 'inner:model' }] },
    `phase('Inner');
     log('in b');
     const got = await agent('inner ' + args.n);
     return { got, n: args.n, parentMark: [].parentMark ?? null };`,
  );
  const fixture = engineFixture({
    respond: echoPrompt,
    // `inner` and `not` are configured routes: a script may name their models.
    service: { cwd: root, modelRoutes: ['inner', 'not'] },
  });
  const script = `Array.prototype.parentMark = 'leaked';
     phase('Outer');
     const first = await agent('outer');
     const inner = await workflow('./b.js', { n: 3 });
     const last = await agent('last');
     return { first, inner, last };`;
  const result = await settled(
    fixture,
    fixture.start(script, {
      scriptPath,
      model: 'outer:model',
      meta: {
        name: 'top',
        description: 'the top script',
        phases: [{ title: 'Inner', model: 'not:this' }, { title: 'Outer' }],
      },
    }),
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, {
    first: '<outer>',
    inner: { got: '<inner 3>', n: 3, parentMark: null },
    last: '<last>',
  });
  assert.equal(result.agentsStarted, 3);
  const starts = fixture.events
    .of('workflow/agent-start')
    .map(({ seq, phase, model, workflow }) => ({ seq, phase, model, workflow }));
  assert.deepEqual(starts, [
    { seq: 1, phase: 'Outer', model: 'outer:model', workflow: undefined },
    { seq: 2, phase: 'Inner', model: 'inner:model', workflow: 'inner flow' },
    { seq: 3, phase: 'Outer', model: 'outer:model', workflow: undefined },
  ]);
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map(({ seq, workflow }) => ({ seq, workflow })),
    [
      { seq: 1, workflow: undefined },
      { seq: 2, workflow: 'inner flow' },
      { seq: 3, workflow: undefined },
    ],
  );
  const [innerStart] = fixture.events.of('workflow/agent-start').filter((event) => event.workflow);
  assert.deepEqual(Object.keys(innerStart ?? {}), [
    'type',
    'runId',
    'seq',
    'label',
    'phase',
    'time',
    'model',
    'workflow',
  ]);
  assert.deepEqual(
    fixture.events.records
      .filter((record) => record.type === 'workflow/phase' || record.type === 'workflow/log')
      .map(({ type, runId, time, ...rest }) => ({ type, ...rest })),
    [
      { type: 'workflow/phase', title: 'Outer' },
      { type: 'workflow/phase', title: 'Inner', workflow: 'inner flow' },
      { type: 'workflow/log', message: 'in b', workflow: 'inner flow' },
    ],
  );
  assert.equal(
    fixture.events.of('workflow/start').length,
    1,
    'a nested run has no start of its own',
  );
  assert.equal(fixture.fake.children[1]?.request.model, 'inner:model');
});

test('without a script path a nested target is found from the service cwd; a custom resolver gets the script folder', async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(flows, 'b.js', { name: 'b' }, `return 'from b';`);
  const fromCwd = engineFixture({ service: { cwd: root } });
  const plain = await settled(fromCwd, fromCwd.start(`return await workflow('flows/b.js');`));
  assert.deepEqual(plain.value, 'from b');

  const asked: Array<[string, string | undefined]> = [];
  const custom = engineFixture({
    service: {
      cwd: '/nowhere',
      resolveWorkflow: (target, relativeTo) => {
        asked.push([target, relativeTo]);
        return join(flows, `${target}.js`);
      },
    },
  });
  const named = await settled(custom, custom.start(`return await workflow('b');`, { scriptPath }));
  assert.equal(named.value, 'from b');
  assert.deepEqual(asked, [['b', flows]]);
});

test('nested runs started at once each get a realm of their own', async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(
    flows,
    'count.js',
    { name: 'count' },
    `globalThis.count = (globalThis.count ?? 0) + 1;
     const got = await agent('item ' + args.n);
     return { got, count };`,
  );
  const fixture = engineFixture({ service: { cwd: root }, respond: echoPrompt });
  const result = await settled(
    fixture,
    fixture.start(
      `return await parallel([1, 2, 3].map((n) => () => workflow('./count.js', { n })));`,
      { scriptPath },
    ),
  );
  assert.deepEqual(result.value, [
    { got: '<item 1>', count: 1 },
    { got: '<item 2>', count: 1 },
    { got: '<item 3>', count: 1 },
  ]);
  assert.deepEqual(
    fixture.events.of('workflow/agent-start').map((event) => event.workflow),
    ['count', 'count', 'count'],
  );
});

test("a nested run shares the run's slots, agent numbering and agent cap", async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(
    flows,
    'one.js',
    { name: 'one' },
    `const asked = agent('inner');
     log('asked');
     return await asked;`,
  );
  const fixture = engineFixture({ service: { cwd: root }, limits: { maxConcurrentAgents: 1 } });
  const run = fixture.start(
    `const held = agent('outer held');
     const inner = await workflow('./one.js');
     return [await held, inner];`,
    { scriptPath },
  );
  const held = await fixture.fake.child(/outer held/);
  // The log follows the nested agent-start on the wire: the host has queued that call by now.
  await fixture.events.waitFor((record) => record.type === 'workflow/log');
  assert.equal(fixture.fake.children.length, 1, 'the nested agent waits for the one slot');
  held.answer({ output: 'outer done' });
  (await fixture.fake.child(/inner/)).answer({ output: 'inner done' });
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, ['outer done', 'inner done']);
  assert.deepEqual(
    fixture.events.of('workflow/agent-start').map(({ seq, label }) => [seq, label]),
    [
      [1, 'outer held'],
      [2, 'inner'],
    ],
  );

  workflowFile(flows, 'many.js', { name: 'many' }, `await agent('b'); await agent('c'); return 1;`);
  const capped = engineFixture({
    service: { cwd: root },
    respond: echoPrompt,
    limits: { maxTotalAgents: 2 },
  });
  const over = await settled(
    capped,
    capped.start(`await agent('a'); return await workflow('./many.js');`, { scriptPath }),
  );
  assert.equal(over.stopReason, 'error');
  assert.equal(over.error?.code, 'AGENT_CAP');
  assert.equal(over.agentsStarted, 2);
});

test("cancelling the run cancels the nested run's agents through both channels", async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(flows, 'held.js', { name: 'held' }, `return await agent('held inner');`);
  const fixture = engineFixture({ service: { cwd: root } });
  const run = fixture.start(`return await workflow('./held.js');`, { scriptPath });
  const child = await fixture.fake.child(/held inner/);
  run.cancel('the user stopped it');
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'cancelled');
  assert.deepEqual([...child.cancelledVia].sort(), ['cancel', 'signal']);
  assert.deepEqual(
    fixture.events.of('workflow/agent-end').map(({ outcome, workflow }) => ({ outcome, workflow })),
    [{ outcome: 'cancelled', workflow: 'held' }],
  );
});

test('a fatal error inside a nested run ends the run with its code; nesting twice is NESTING_LIMIT', async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(flows, 'bad-option.js', { name: 'bad' }, `return await agent('x', { bogus: 1 });`);
  workflowFile(flows, 'b.js', { name: 'b' }, `return await workflow('./c.js');`);
  workflowFile(flows, 'c.js', { name: 'c' }, `return 'never';`);
  const fixture = engineFixture({ service: { cwd: root }, respond: echoPrompt });
  const option = await settled(
    fixture,
    fixture.start(`return await workflow('./bad-option.js');`, { scriptPath }),
  );
  assert.equal(option.error?.code, 'UNSUPPORTED_OPTION');
  const twice = await settled(
    fixture,
    fixture.start(`return await workflow('./b.js');`, { scriptPath }),
  );
  assert.equal(twice.stopReason, 'error');
  assert.equal(twice.error?.code, 'NESTING_LIMIT');
  assert.match(
    twice.error?.message ?? '',
    /workflow\("\.\/c\.js"\) was called inside the nested workflow "b"/,
  );
});

test('a target that cannot run ends the run with an error naming it, even when the script drops or catches the call', async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(flows, 'bad-meta.js', { name: 'x', colour: 'red' }, `return 1;`);
  writeFile(flows, 'no-meta.js', `return 1;\n`);
  workflowFile(flows, 'bad-syntax.js', { name: 'x' }, `return (;`);
  mkdirSync(join(flows, 'folder.js'));
  execFileSync('mkfifo', [join(flows, 'pipe.js')]);
  const cases: Array<{ script: string; code: string; pattern: RegExp }> = [
    {
      script: `return await workflow('./missing.js');`,
      code: 'INVALID_ARGUMENT',
      pattern: new RegExp(
        `workflow\\("\\./missing\\.js"\\) cannot run: cannot read the workflow file ${join(flows, 'missing.js')}: no such file`,
      ),
    },
    {
      script: `workflow('./missing.js'); return 'dropped';`,
      code: 'INVALID_ARGUMENT',
      pattern: /missing\.js: no such file/,
    },
    {
      script: `try { await workflow('./missing.js'); } catch (error) { log(error.code); } return 'caught';`,
      code: 'INVALID_ARGUMENT',
      pattern: /missing\.js: no such file/,
    },
    {
      script: `return await workflow('review');`,
      code: 'INVALID_ARGUMENT',
      pattern: /workflow\("review"\) cannot run: no saved workflow named "review"/,
    },
    {
      script: `return await workflow('./bad-meta.js');`,
      code: 'META_INVALID',
      pattern: /bad-meta\.js: invalid workflow meta.*\n.*colour/,
    },
    {
      script: `return await workflow('./no-meta.js');`,
      code: 'META_INVALID',
      pattern: /no-meta\.js has no meta/,
    },
    {
      script: `return await workflow('./folder.js');`,
      code: 'INVALID_ARGUMENT',
      pattern: /folder\.js: it is a folder/,
    },
    {
      script: `return await workflow('./pipe.js');`,
      code: 'INVALID_ARGUMENT',
      pattern: /pipe\.js: it is not a regular file/,
    },
    {
      script: `return await workflow('./bad-syntax.js');`,
      code: 'SCRIPT_PARSE',
      pattern: /bad-syntax\.js: /,
    },
  ];
  for (const { script, code, pattern } of cases) {
    const fixture = engineFixture({ service: { cwd: root } });
    const result = await settled(fixture, fixture.start(script, { scriptPath }));
    assert.equal(result.stopReason, 'error', script);
    assert.equal(result.value, null, script);
    assert.equal(result.error?.code, code, `${script}: ${result.error?.message}`);
    assert.match(result.error?.message ?? '', pattern, script);
    assert.equal(fixture.fake.children.length, 0);
  }
});

test("a nested workflow shares the run's budget; its own budgetTokens is logged as not applied", async () => {
  const { root, flows, scriptPath } = project();
  workflowFile(
    flows,
    'b.js',
    { name: 'inner flow', budgetTokens: 5 },
    `const before = budget.spent();
     await agent('inner');
     return { total: budget.total, before, after: budget.spent() };`,
  );
  const fixture = engineFixture({
    respond: (request) => ({ output: request.prompt, usage: { input: 40, output: 10 } }),
    service: { cwd: root },
  });
  const result = await settled(
    fixture,
    fixture.start(`await agent('outer'); return await workflow('./b.js');`, {
      scriptPath,
      budgetTokens: 1000,
    }),
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { total: 1000, before: 50, after: 100 });
  assert.deepEqual(
    fixture.events.of('workflow/log').map(({ message, workflow }) => ({ message, workflow })),
    [
      {
        message:
          "the nested workflow's budgetTokens (5) is not applied: a run has one token budget, the top script's",
        workflow: 'inner flow',
      },
    ],
  );
});
