/**
 * `/compact` over ACP, with Loom's ACP server in this process and the scripted model: offered in
 * `available_commands_update`, it prunes the idle session's old tool results and answers with
 * the compaction line (the log keeps them), a second one is skipped, and while a turn runs it is
 * refused as text without touching the log.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compactedView } from '../../src/context/compacted-view.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, isToolResult, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const FILES = 6;
const read = (index: number) => ({
  tools: [{ name: 'read_file', arguments: { path: `file-${index}.txt` } }],
});

function folders() {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  for (let index = 1; index <= FILES; index++) {
    writeFileSync(
      join(workspace, `file-${index}.txt`),
      `file ${index}: ${'abcdefghij'.repeat(200)}\n`,
    );
  }
  const model = writeScriptedModel(home, {
    rules: [
      { when: '^Summarize the conversation below', reply: 'Read the files.' },
      {
        when: '^read every file$',
        steps: [
          ...Array.from({ length: FILES }, (_, i) => read(i + 1)),
          { reply: 'read them all' },
        ],
      },
      { when: '^stuck$', steps: [read(1), { hang: true }] },
    ],
  });
  return { home, workspace, model };
}

const ofType = (events: readonly SessionEvent[], type: string) =>
  events.filter((event) => event.type === type);

test('acp /compact: offered, prunes an idle session and says so; with nothing left to prune a summary that would not be smaller is skipped', async () => {
  const { home, workspace, model } = folders();
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(offered.sessionUpdate === 'available_commands_update');
    assert.ok(offered.availableCommands.some((command) => command.name === 'compact'));

    const turn = await promptFor(agent, log, sessionId, 'read every file');
    assert.equal(turn.stopReason, 'end_turn');
    const compacted = await promptFor(agent, log, sessionId, '/compact');
    assert.equal(compacted.stopReason, 'end_turn');
    assert.match(compacted.text, /^compacted: 4 tool results pruned \(\S+ → \S+ tokens\)$/);
    const again = await promptFor(agent, log, sessionId, '/compact');
    assert.match(
      again.text,
      /^compaction skipped: the summary would not be smaller than what it replaces/,
    );
    return sessionId;
  });
  const { events } = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`));
  const [compaction] = ofType(events, 'context/compact') as SessionEvent<'context/compact'>[];
  assert.equal(compaction?.data.trigger, 'manual');
  assert.deepEqual([...(compaction?.data.pruned ?? [])].sort(), [
    'call_1',
    'call_2',
    'call_3',
    'call_4',
  ]);
  assert.equal(ofType(events, 'context/compact-skipped').length, 1);
  assert.equal(ofType(events, 'tool/result').length, FILES);
  assert.equal(
    compactedView(events).filter(
      (message) => message.role === 'tool' && /pruned; recall/.test(message.content),
    ).length,
    4,
  );
});

test('acp /compact while a turn runs is refused as text and logs nothing', async () => {
  const { home, workspace, model } = folders();
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const from = log.updates.length;
    const running = agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'stuck' }],
    });
    await log.waitFor(isToolResult, from);
    const refused = await promptFor(agent, log, sessionId, '/compact');
    assert.equal(refused.stopReason, 'end_turn');
    assert.match(refused.text, /^\/compact waits for an idle session: a turn is running/);
    await agent.notify('session/cancel', { sessionId });
    assert.equal((await running).stopReason, 'cancelled');
    return sessionId;
  });
  const { events } = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`));
  assert.equal(ofType(events, 'context/compact').length, 0);
  assert.equal(ofType(events, 'context/compact-skipped').length, 0);
});
