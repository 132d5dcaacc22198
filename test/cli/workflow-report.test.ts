import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  attribute,
  externalReferences,
  parseReport,
  textOf,
  within,
} from '../workflow/report-html-tree.js';
import {
  parseResult,
  quickAndStuckModel,
  runWorkflow,
  startScriptedWorkflow,
  writeFile,
} from './workflow-fixture.js';

const HOSTILE = '</script><script>alert(1)</script>';

const sixAgents = `export const meta = { name: 'six', description: 'six agents, one fails', phases: [{ title: 'ask' }] };
phase('ask');
const answers = await parallel(['a', 'b', 'c', 'd', 'e', 'f'].map((item) => () =>
  agent('ask ' + item, { label: item === 'c' ? ${JSON.stringify(HOSTILE)} : 'ask ' + item })));
log('answered ' + answers.filter(Boolean).length);
return answers;
`;

const sixModel = {
  rules: [
    { when: '^ask c$', error: 'the model refused c' },
    { when: '^ask (\\w)$', reply: 'answer {{1}}' },
  ],
};

/** The report's agents table, as `seq → [label, state]`; asserts the page loads nothing. */
function agentsOf(path: string): Map<number, [string, string]> {
  const html = readFileSync(path, 'utf8');
  const tree = parseReport(html);
  assert.deepEqual(externalReferences(html, tree), []);
  const table = tree.byId('agents');
  assert.ok(table, `${path} has the agents table`);
  const agents = new Map<number, [string, string]>();
  for (const row of within(table, 'tr')) {
    const id = attribute(row, 'id');
    if (!id?.startsWith('a')) continue;
    const cells = within(row, 'td');
    agents.set(Number(id.slice(1)), [
      textOf(cells[1] as never),
      attribute(row, 'data-state') ?? '',
    ]);
  }
  return agents;
}

function badgeOf(path: string) {
  const tree = parseReport(readFileSync(path, 'utf8'));
  return tree.elements.find((element) => (attribute(element, 'class') ?? '').startsWith('status '));
}

function statusOf(path: string): string {
  const badge = badgeOf(path);
  return badge ? textOf(badge) : '';
}

function classOf(path: string): string {
  const badge = badgeOf(path);
  return badge ? (attribute(badge, 'class') ?? '') : '';
}

test('ACCEPTANCE: loom workflow run --report writes the report when the run completes; loom workflow report RUN_ID [-o FILE] writes it again; an unknown run id exits 2 naming it', async () => {
  const home = temporaryFolder();
  const reportPath = join(home, 'run.html');
  const { loom } = startScriptedWorkflow(
    home,
    { name: 'six.js', script: sixAgents, model: sixModel },
    ['--json', '--report', reportPath],
  );
  const run = await loom.exited;
  assert.equal(run.code, 3, `completed with a failed agent: ${run.stderr}`);
  const runId = parseResult(run).runId as string;
  const agents = agentsOf(reportPath);
  assert.equal(agents.size, 6);
  assert.deepEqual(
    [...agents.values()].find(([label]) => label === HOSTILE),
    [HOSTILE, 'failed'],
    'the hostile label is text, and its agent failed',
  );
  assert.equal([...agents.values()].filter(([, state]) => state === 'completed').length, 5);
  assert.equal(statusOf(reportPath), 'completed with 1 failed agent');
  assert.equal(classOf(reportPath), 'status failed-agents', 'the amber badge, not the green one');

  const again = join(home, 'again.html');
  const written = await runWorkflow(['report', runId, '-o', again], { home });
  assert.equal(written.code, 0, written.stderr);
  assert.equal(written.stdout, `${again}\n`);
  assert.deepEqual(agentsOf(again), agents);

  const byDefault = await runWorkflow(['report', runId], { home });
  assert.equal(byDefault.code, 0, byDefault.stderr);
  assert.ok(existsSync(join(home, `${runId}.html`)), 'default: ./RUN_ID.html');

  const unknown = 'workflow-00000000-0000-0000-0000-000000000000';
  const missing = await runWorkflow(['report', unknown], { home });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`no run ${unknown}`));
  assert.ok(!existsSync(join(home, `${unknown}.html`)));
  const malformed = await runWorkflow(['report', '../etc'], { home });
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /"\.\.\/etc" is not a run id/);
});

test('workflow run --report: written when the run ends with an error, when it is cancelled, and on a forced second Ctrl-C; a report path in no folder is refused before the run', async () => {
  const errorHome = temporaryFolder();
  const errorReport = join(errorHome, 'error.html');
  const failing = startScriptedWorkflow(
    errorHome,
    {
      name: 'throws.js',
      script: `export const meta = { name: 'throws', description: 'throws after its agents' };
await parallel([() => agent('ask a'), () => agent('ask b')]);
throw new Error('the script gave up');
`,
      model: sixModel,
    },
    ['--report', errorReport],
  ).loom;

  const cancelHome = temporaryFolder();
  const cancelReport = join(cancelHome, 'cancelled.html');
  const cancelled = startScriptedWorkflow(
    cancelHome,
    {
      name: 'stuck.js',
      script: `export const meta = { name: 'stuck', description: 'one child never answers' };
await agent('quick', { label: 'quick' });
return await agent('stuck forever', { label: 'stuck' });
`,
      model: quickAndStuckModel,
    },
    ['--report', cancelReport],
  ).loom;

  const forcedHome = temporaryFolder();
  writeFile(forcedHome, 'config.yaml', 'workflow:\n  cancelGraceMs: 600000\n');
  const forcedReport = join(forcedHome, 'forced.html');
  const forced = startScriptedWorkflow(
    forcedHome,
    {
      name: 'spin.js',
      script: `export const meta = { name: 'spin', description: 'spins after one agent' };
await agent('warm up', { label: 'warm up' });
for (;;) {}
`,
      model: { rules: [], default: { reply: 'ok' } },
    },
    ['--report', forcedReport],
  ).loom;

  const failed = await failing.exited;
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal(statusOf(errorReport), 'error SCRIPT_ERROR');
  assert.match(readFileSync(errorReport, 'utf8'), /the script gave up/);
  assert.equal(agentsOf(errorReport).size, 2);

  await cancelled.waitForStderr(/^agent #2 started: stuck/);
  cancelled.child.kill('SIGINT');
  const stopped = await cancelled.exited;
  assert.equal(stopped.code, 130, stopped.stderr);
  assert.equal(statusOf(cancelReport), 'cancelled');
  assert.deepEqual(
    [...agentsOf(cancelReport).values()],
    [
      ['quick', 'completed'],
      ['stuck', 'cancelled'],
    ],
  );

  await forced.waitForStderr(/^agent #1 completed: warm up/);
  forced.child.kill('SIGINT');
  await forced.waitForStderr(/cancelling/);
  forced.child.kill('SIGINT');
  const ended = await forced.exited;
  assert.equal(ended.code, 130, ended.stderr);
  assert.equal(statusOf(forcedReport), 'cancelled');
  assert.deepEqual([...agentsOf(forcedReport).values()], [['warm up', 'completed']]);

  const nowhere = join(errorHome, 'no-such-folder', 'report.html');
  const refused = await runWorkflow(
    [
      'run',
      join(errorHome, 'throws.js'),
      '--model',
      `scripted:${join(errorHome, 'model.json')}`,
      '--report',
      nowhere,
    ],
    {
      home: errorHome,
    },
  );
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--report: cannot write .*no-such-folder/);
  assert.doesNotMatch(refused.stderr, /^workflow throws/m, 'the run never started');
});

test('the report of a run killed with SIGKILL before its events reached the disk lists the calls its journal holds', async () => {
  const home = temporaryFolder();
  const { loom } = startScriptedWorkflow(home, {
    name: 'killed.js',
    script: `export const meta = { name: 'killed', description: 'killed half way' };
return await parallel(['quick 1', 'quick 2', 'quick 3', 'stuck 4'].map((item) => () => agent(item, { label: 'label ' + item })));
`,
    model: quickAndStuckModel,
  });
  await loom.waitForStderr(/^agent #\d+ completed: label quick/, 3);
  loom.child.kill('SIGKILL');
  const killed = await loom.exited;
  assert.equal(killed.code, null, 'killed, not finished');
  const listed = await runWorkflow(['runs', '--json'], { home });
  const runId = (JSON.parse(listed.stdout.trim()) as { runId: string }).runId;
  const path = join(home, 'killed.html');
  const written = await runWorkflow(['report', runId, '-o', path], { home });
  assert.equal(written.code, 0, written.stderr);
  assert.equal(statusOf(path), 'interrupted');
  assert.deepEqual([...agentsOf(path).values()].map(([label, state]) => [label, state]).sort(), [
    ['label quick 1', 'completed'],
    ['label quick 2', 'completed'],
    ['label quick 3', 'completed'],
  ]);
  assert.match(readFileSync(path, 'utf8'), /come from its journal/);
});
