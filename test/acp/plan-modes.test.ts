/**
 * Plan mode as an ACP session mode, with Loom's ACP server in this process and the scripted
 * model: the modes of session/new and session/load, session/set_mode logging `plan/mode` and
 * switching the guard on, unknown modes refused, and `current_mode_update` on approval.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { sendModeChanges, sessionModesOf } from '../../src/acp/session-modes.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { planRuntime, serviceOf } from '../plan/plan-fixture.js';

const writeNotes = {
  when: 'write',
  steps: [
    { tools: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'x' } }] },
    { reply: '{{lastToolResult}}' },
  ],
};

test('acp: session/set_mode plan is logged, guards the next prompt, and session/load reports it', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [writeNotes] });
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const created = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    assert.equal(created.modes?.currentModeId, 'default');
    assert.deepEqual(
      created.modes?.availableModes.map((mode) => mode.id),
      ['default', 'plan'],
    );
    await assert.rejects(
      agent.request('session/set_mode', { sessionId: created.sessionId, modeId: 'turbo' }),
      /unknown mode "turbo"/,
    );
    await agent.request('session/set_mode', { sessionId: created.sessionId, modeId: 'plan' });
    const { text } = await promptFor(agent, log, created.sessionId, 'write');
    assert.match(text, /not allowed in plan mode/);
    assert.equal(existsSync(join(workspace, 'notes.txt')), false);
    return created.sessionId;
  });
  const events = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(checkSessionInvariants(events), []);
  assert.deepEqual(
    events.filter((event) => event.type === 'plan/mode').map((event) => event.data),
    [{ mode: 'plan', by: 'user' }],
  );
  await withAcpInProcess({ home, model }, async (agent) => {
    await initialize(agent);
    const loaded = await agent.request('session/load', {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, 'plan');
    await agent.request('session/set_mode', { sessionId, modeId: 'default' });
  });
  const after = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(
    (after.filter((event) => event.type === 'plan/mode') as SessionEvent<'plan/mode'>[]).map(
      (event) => event.data.mode,
    ),
    ['plan', 'default'],
  );
});

test('acp: leaving plan mode by approval sends current_mode_update; the client switching does not', () => {
  const { runtime } = planRuntime({ rules: [] });
  const handle = runtime.start();
  const sent: SessionUpdate[] = [];
  const stop = sendModeChanges(handle, (update) => sent.push(update));
  const service = serviceOf(handle);
  service.setMode('plan', 'user');
  assert.equal(sessionModesOf(handle)?.currentModeId, 'plan');
  service.setMode('default', 'approval');
  assert.deepEqual(sent, [{ sessionUpdate: 'current_mode_update', currentModeId: 'default' }]);
  stop();
  handle.close();
});

test('acp: a plan approved in the editor ends plan mode with current_mode_update, and the turn goes on', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: 'plan then write',
        steps: [
          { tools: [{ name: 'exit_plan_mode', arguments: { plan: '1. write notes.txt' } }] },
          { tools: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'x' } }] },
          { reply: 'done: {{lastToolResult}}' },
        ],
      },
    ],
  });
  const reviews: string[] = [];
  await withAcpInProcess(
    {
      home,
      model,
      permission(request) {
        reviews.push(request.options.map((option) => option.name).join(' / '));
        const approve = request.options.find((option) => option.kind === 'allow_once');
        assert.ok(approve, 'the review offers an approval');
        return { outcome: { outcome: 'selected', optionId: approve.optionId } };
      },
    },
    async (agent, log) => {
      await initialize(agent);
      const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
      await agent.request('session/set_mode', { sessionId, modeId: 'plan' });
      const { updates, text } = await promptFor(agent, log, sessionId, 'plan then write');
      assert.deepEqual(reviews, ['Approve / Keep planning']);
      assert.ok(
        updates.some(
          (update) =>
            update.sessionUpdate === 'current_mode_update' && update.currentModeId === 'default',
        ),
        'the editor is told plan mode ended',
      );
      assert.match(text, /^done: /);
    },
  );
  assert.equal(existsSync(join(workspace, 'notes.txt')), true);
});
