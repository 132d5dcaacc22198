/**
 * Todos over ACP, with Loom's ACP server in this process and the scripted model: each
 * `todo_write` reaches the client as a `plan` update with every entry's content, status and a
 * priority, and `session/load` shows the stored lists again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PlanEntry } from '@agentclientprotocol/sdk';
import { scriptedFolders } from '../cli/loom-process.js';
import { initialize, isToolResult, promptFor, withAcpInProcess } from '../helpers/acp-client.js';

const start = [
  { content: 'Read the code', status: 'in_progress', activeForm: 'Reading the code' },
  { content: 'Write the fix', status: 'pending' },
];
const finish = [
  { content: 'Read the code', status: 'completed' },
  { content: 'Write the fix', status: 'completed' },
];
const writeTodos = (todos: unknown[]) => ({
  tools: [{ name: 'todo_write', arguments: { todos } }],
});

const entries = (todos: ReadonlyArray<{ content: string; status: string }>): PlanEntry[] =>
  todos.map(({ content, status }) => ({ content, status, priority: 'medium' }) as PlanEntry);

test('acp: todo_write sends the list as a plan update, and session/load shows it again', async () => {
  const folders = scriptedFolders({
    rules: [
      {
        when: 'fix it',
        steps: [writeTodos(start), writeTodos(finish), { reply: 'fixed' }],
      },
    ],
  });
  const { home, workspace, model } = folders;
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const run = await promptFor(agent, log, sessionId, 'fix it');
    assert.equal(run.stopReason, 'end_turn');
    const plans = run.updates.filter((update) => update.sessionUpdate === 'plan');
    assert.deepEqual(plans, [
      { sessionUpdate: 'plan', entries: entries(start) },
      { sessionUpdate: 'plan', entries: entries(finish) },
    ]);
    const kinds = run.updates.map((update) => update.sessionUpdate);
    const firstPlan = kinds.indexOf('plan');
    assert.ok(
      firstPlan > kinds.indexOf('tool_call') && firstPlan < run.updates.findIndex(isToolResult),
      `the plan comes while its tool call runs: ${kinds.join(', ')}`,
    );
    // Sent just after session/new; waiting for it leaves nothing in flight at shutdown.
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    return sessionId;
  });

  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    // The last update a load sends; waiting for it leaves nothing in flight at shutdown.
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    const plans = log.updates.filter((update) => update.sessionUpdate === 'plan');
    assert.deepEqual(plans.at(-1), { sessionUpdate: 'plan', entries: entries(finish) });
  });
});
