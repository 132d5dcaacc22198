import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { deriveMessages } from '../../src/core/messages.js';
import { availableTools } from '../../src/core/tool-presentation.js';
import { foldPlanMode } from '../../src/plan/plan-mode.js';
import {
  eventsOf,
  planAnswerer,
  planRuntime,
  serviceOf,
  startPlanning,
  toolResults,
} from './plan-fixture.js';

const write = { name: 'write_file', arguments: { path: 'notes.txt', content: 'changed' } };
const exitPlan = (plan: string) => ({ name: 'exit_plan_mode', arguments: { plan } });

test('plan mode refuses write_file with a message pointing at exit_plan_mode; the file stays absent', async () => {
  const { handle, workspace } = startPlanning({
    rules: [{ when: 'go', steps: [{ tools: [write] }, { reply: 'done' }] }],
  });
  const outcome = await handle.agent.prompt('go');
  assert.equal(outcome.reason, 'completed');
  const [result] = toolResults(handle.log.events, 'write_file');
  assert.ok(result);
  assert.equal(result.isError, true);
  assert.match(result.content, /not allowed in plan mode/);
  assert.match(result.content, /exit_plan_mode/);
  assert.equal(existsSync(join(workspace, 'notes.txt')), false);
  handle.close();
});

test('plan mode lets only bash commands an allow rule names run, and no background command', async () => {
  const { handle } = startPlanning(
    {
      rules: [
        {
          when: 'go',
          steps: [
            { tools: [{ name: 'bash', arguments: { command: 'echo read-only' } }] },
            { tools: [{ name: 'bash', arguments: { command: 'touch made.txt' } }] },
            { tools: [{ name: 'bash', arguments: { command: 'echo hi && touch made.txt' } }] },
            { reply: 'done' },
          ],
        },
      ],
    },
    {
      settings: {
        permissions: [{ tool: 'bash', match: { command: 'echo *' }, action: 'allow' }],
      },
    },
  );
  await handle.agent.prompt('go');
  const [allowed, touched, chained] = toolResults(handle.log.events, 'bash');
  assert.equal(allowed?.isError, false, allowed?.content);
  assert.match(allowed?.content ?? '', /read-only/);
  assert.equal(touched?.isError, true);
  assert.match(touched?.content ?? '', /plan mode/);
  assert.equal(chained?.isError, true, 'every simple command must be read-only');
  handle.close();
});

test('with plan.enforce false plan mode is prompt-only: write_file works', async () => {
  const { handle, workspace, service } = startPlanning(
    { rules: [{ when: 'go', steps: [{ tools: [write] }, { reply: 'done' }] }] },
    { settings: { enforce: false } },
  );
  assert.equal(service.mode, 'plan');
  assert.equal(service.enforced, false);
  await handle.agent.prompt('go');
  assert.equal(toolResults(handle.log.events, 'write_file')[0]?.isError, false);
  assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'changed');
  handle.close();
});

test('an approved plan ends plan mode and is logged; the write that follows succeeds', async () => {
  const answerer = planAnswerer({ approved: true });
  const { handle, service, workspace } = startPlanning(
    {
      rules: [
        {
          when: 'go',
          steps: [{ tools: [exitPlan('1. write notes')] }, { tools: [write] }, { reply: 'done' }],
        },
      ],
    },
    { answerer },
  );
  await handle.agent.prompt('go');
  assert.deepEqual(answerer.plans, ['1. write notes']);
  assert.deepEqual(eventsOf(handle.log.events, 'plan/approved'), [{ plan: '1. write notes' }]);
  assert.deepEqual(eventsOf(handle.log.events, 'plan/mode').at(-1), {
    mode: 'default',
    by: 'approval',
  });
  assert.equal(service.mode, 'default');
  assert.match(toolResults(handle.log.events, 'exit_plan_mode')[0]?.content ?? '', /approved/);
  assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'changed');
  handle.close();
});

test('a rejected plan keeps plan mode and its feedback is the tool result', async () => {
  const answerer = planAnswerer({ approved: false, feedback: 'also cover the tests' });
  const { handle, service } = startPlanning(
    { rules: [{ when: 'go', steps: [{ tools: [exitPlan('1. write notes')] }, { reply: 'ok' }] }] },
    { answerer },
  );
  await handle.agent.prompt('go');
  const [result] = toolResults(handle.log.events, 'exit_plan_mode');
  assert.equal(result?.isError, false);
  assert.match(result?.content ?? '', /also cover the tests/);
  assert.equal(service.mode, 'plan');
  assert.deepEqual(eventsOf(handle.log.events, 'plan/approved'), []);
  handle.close();
});

test('exit_plan_mode fails clearly outside plan mode, and with NO_USER when nobody can review', async () => {
  const { runtime } = planRuntime({
    rules: [{ when: 'go', steps: [{ tools: [exitPlan('a plan')] }, { reply: 'ok' }] }],
  });
  const outside = runtime.start();
  await outside.agent.prompt('go');
  assert.equal(toolResults(outside.log.events, 'exit_plan_mode')[0]?.errorCode, 'PLAN_MODE_OFF');
  outside.close();
  const planning = runtime.start();
  serviceOf(planning).setMode('plan');
  await planning.agent.prompt('go');
  const [result] = toolResults(planning.log.events, 'exit_plan_mode');
  assert.equal(result?.errorCode, 'NO_USER');
  assert.equal(serviceOf(planning).mode, 'plan');
  planning.close();
});

test('plan mode survives reopening the session and never reaches the model transcript', async () => {
  const { runtime, workspace } = planRuntime({
    rules: [{ when: 'go', steps: [{ tools: [write] }, { reply: 'done' }] }],
  });
  const first = runtime.start();
  const sessionId = first.log.header.sessionId;
  serviceOf(first).setMode('plan');
  first.close();
  await first.agent.whenIdle();
  const { runtime: again } = planRuntime(
    { rules: [{ when: 'go', steps: [{ tools: [write] }, { reply: 'done' }] }] },
    { home: workspace },
  );
  const reopened = again.resume(sessionId);
  assert.equal(serviceOf(reopened).mode, 'plan');
  assert.equal(foldPlanMode(reopened.log.events), 'plan');
  assert.deepEqual(deriveMessages(reopened.log.events), [], 'plan/mode is not a message');
  await reopened.agent.prompt('go');
  assert.equal(toolResults(reopened.log.events, 'write_file')[0]?.isError, true);
  assert.equal(existsSync(join(workspace, 'notes.txt')), false);
  reopened.close();
});

test('tools described ahead of calls leave out what plan mode always denies, while it is enforced', async () => {
  const { handle, service } = startPlanning({ default: { reply: 'ok' } });
  const names = async () =>
    (await availableTools(handle.context, handle.agent.id, handle.tools.visible())).map(
      (tool) => tool.name,
    );
  const planning = await names();
  for (const name of ['write_file', 'edit_file']) assert.equal(planning.includes(name), false);
  for (const name of ['read_file', 'bash', 'grep']) assert.ok(planning.includes(name), name);
  service.setMode('default');
  const working = await names();
  for (const name of ['write_file', 'edit_file']) assert.ok(working.includes(name), name);
  handle.close();
});
