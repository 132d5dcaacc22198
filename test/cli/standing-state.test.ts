/**
 * `agent/standing-state` on a runtime built as the CLI builds it: a root agent with a goal,
 * open todos, plan mode, a schedule and a running job gets one block from each layer, in the
 * order the layers install (jobs, goal, todos, plan, schedules); an approved plan replaces the
 * plan-mode block; the session opened again in a new runtime gives the same blocks from its log
 * (the job, gone with its process, excepted). Another agent's id gets nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRuntime, type LoomSetup } from '../../src/cli/build-runtime.js';
import type { BackgroundOutcome } from '../../src/core/background.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import { isEvent } from '../../src/core/session-events.js';
import { standingState } from '../../src/core/standing-state.js';
import { goalOf } from '../../src/goal/install.js';
import { planReviewerKey } from '../../src/plan/contract.js';
import { planModeOf } from '../../src/plan/install.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { writeScriptedModel } from './loom-process.js';

const PLAN = '1. Edit `src/a.ts`\n2. Run the tests';

const MODEL = {
  rules: [
    {
      when: '^set up$',
      steps: [
        {
          tools: [
            {
              name: 'todo_write',
              arguments: {
                todos: [
                  { content: 'Read the code', status: 'completed' },
                  { content: 'Write the fix', status: 'in_progress' },
                  { content: 'Run the tests', status: 'pending' },
                ],
              },
            },
            {
              name: 'schedule_create',
              arguments: { prompt: 'check the build', after_seconds: 3600 },
            },
          ],
        },
        { reply: 'set up' },
      ],
    },
    {
      when: '^present$',
      steps: [{ tools: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] }, { reply: 'ok' }],
    },
  ],
};

const blocksOf = (handle: AgentHandle, agentId = handle.agent.id) =>
  handle.context.serial(standingState, { agentId }, []);

const disposed = new Set<LoomSetup>();
function disposeAll(setup: LoomSetup): void {
  if (disposed.has(setup)) return;
  disposed.add(setup);
  setup.goals.dispose();
  setup.plan.dispose();
  setup.workflow.dispose();
  setup.subagents.dispose();
  setup.jobs.dispose();
}

/** A job that runs until it is cancelled. */
function startJob(setup: LoomSetup, owner: string): string {
  let finish: (outcome: BackgroundOutcome) => void = () => {};
  const done = new Promise<BackgroundOutcome>((resolve) => {
    finish = resolve;
  });
  return setup.jobs.service.start({
    kind: 'bash',
    label: 'npm run watch',
    owner,
    run: () => ({ cancel: () => finish({ status: 'killed', summary: 'stopped' }), done }),
  }).id;
}

test('each layer restates what stands for the agent, folded from its log, in install order', async () => {
  const home = temporaryFolder('loom-standing-');
  const model = `scripted:${writeScriptedModel(home, MODEL)}`;
  const setup = buildRuntime({ cwd: home, home, model });
  setup.runtime.root.provide(planReviewerKey, { review: async () => ({ kind: 'approved' }) });
  const handle = setup.runtime.start();
  const sessionId = handle.agent.id;
  let reopened: LoomSetup | undefined;
  try {
    assert.deepEqual(await blocksOf(handle), [], 'a new session has nothing standing');
    assert.equal((await handle.agent.prompt('set up')).reason, 'completed');
    goalOf(handle)?.service.create({ objective: 'Make `npm test` pass', by: 'human' });
    planModeOf(handle)?.setMode('plan');
    const jobId = startJob(setup, sessionId);
    const created = handle.log.events.find((event) => isEvent(event, 'schedule/create'));
    assert.ok(created && isEvent(created, 'schedule/create'));
    const dueAt = new Date(created.data.dueAt).toISOString();

    const todos =
      '# Todos\n- [in_progress] Write the fix\n- [pending] Run the tests\n(1 completed item left out)';
    const goal = '# Goal\ngoal-1, active, 0 of 20 rounds started: Make `npm test` pass';
    const schedule = new RegExp(
      `^# Schedules\\n- schedule-1 \\(once\\), next at ${dueAt} \\(in (1 h|59 min)\\): check the build$`,
    );
    const [jobs, ...rest] = await blocksOf(handle);
    assert.match(
      jobs ?? '',
      new RegExp(`^# Background jobs\\n- ${jobId}  running  \\d+s  npm run watch\\n`),
    );
    assert.equal(rest.length, 4, rest.join('\n---\n'));
    assert.equal(rest[0], goal);
    assert.equal(rest[1], todos);
    assert.match(rest[2] ?? '', /^# Plan mode\nPlan mode is on \(enforced: /);
    assert.match(rest[3] ?? '', schedule);
    assert.deepEqual(await blocksOf(handle, 'another-agent'), [], 'another agent gets nothing');

    assert.equal((await handle.agent.prompt('present')).reason, 'completed');
    const approved = `# Approved plan\nThe user approved this plan and plan mode ended with it:\n\n${PLAN}`;
    assert.equal((await blocksOf(handle))[3], approved);

    handle.close();
    disposeAll(setup);
    reopened = buildRuntime({ cwd: home, home, model });
    const again = reopened.runtime.resume(sessionId);
    try {
      const blocks = await blocksOf(again);
      assert.deepEqual(blocks.slice(0, 3), [goal, todos, approved]);
      assert.match(blocks[3] ?? '', schedule);
      assert.equal(blocks.length, 4, 'the job ended with its process');
    } finally {
      again.close();
    }
  } finally {
    handle.close();
    disposeAll(setup);
    if (reopened) disposeAll(reopened);
  }
});
