/**
 * `bin/loom acp` tells a client of the compactions its session's context goes through, when the
 * client advertised `session.compaction`: a turn reading more than a small scripted window holds
 * is pruned on its way, and the client gets that compaction as one `completed`
 * `compaction_update` (the line the terminal shows as its summary, Loom's figures in
 * `_meta.loom`), valid by the SDK's own schemas, and once more when it loads the session. A
 * client that did not advertise it gets none, live or loaded.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { contextCompactLine } from '../../src/context/context-lines.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { initialize, promptFor, type Update, updateLog } from '../helpers/acp-client.js';
import { acpSchemaErrors } from '../helpers/acp-schema.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { withLoomAcp } from './loom-acp.js';
import { writeScriptedModel } from './loom-process.js';

const FILES = 12;

/** A workspace of 2 KB files and a model of a 16k window that reads them all in one turn. */
function folders() {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  for (let index = 1; index <= FILES; index++) {
    const line = `file ${index}: ${'abcdefghij'.repeat(6)}\n`;
    writeFileSync(join(workspace, `file-${index}.txt`), line.repeat(Math.ceil(4096 / line.length)));
  }
  const model = writeScriptedModel(home, {
    context: 16_000,
    rules: [
      {
        when: '^read every file$',
        steps: [
          ...Array.from({ length: FILES }, (_, index) => ({
            tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
          })),
          { reply: 'read them all' },
        ],
      },
    ],
  });
  return { home, workspace, model };
}

const isCompaction = (update: Update) => update.sessionUpdate === 'compaction_update';

function compactionsOf(home: string, sessionId: string) {
  const { events } = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`));
  return events.filter(
    (event) => event.type === 'context/compact',
  ) as SessionEvent<'context/compact'>[];
}

test('loom acp: a client that takes compactions gets the pruning as a completed compaction_update, and again on load', async () => {
  const { home, workspace, model } = folders();
  const parsed = updateLog();
  const capabilities = { session: { compaction: {} } };
  const { sessionId, live } = await withLoomAcp({ home, model, parsed }, async (agent, log) => {
    await initialize(agent, capabilities);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const turn = await promptFor(agent, log, sessionId, 'read every file');
    assert.equal(turn.stopReason, 'end_turn');
    assert.equal(turn.text, 'read them all');
    const sent = turn.updates.filter(isCompaction);
    assert.equal(sent.length, 1);
    const [live] = sent;
    assert.ok(live?.sessionUpdate === 'compaction_update');
    assert.deepEqual(acpSchemaErrors(live), []);
    // The SDK's client read every field of it.
    assert.deepEqual(await parsed.waitFor(isCompaction), live);
    // The request that followed was the compacted one.
    const next = turn.updates
      .slice(turn.updates.indexOf(live))
      .find((update) => update.sessionUpdate === 'usage_update');
    assert.ok(next?.sessionUpdate === 'usage_update');
    assert.equal(next.used, (live._meta as { loom: { after: number } }).loom.after);
    return { sessionId, live };
  });
  const [compaction, ...others] = compactionsOf(home, sessionId);
  assert.ok(compaction);
  assert.equal(others.length, 0);
  const { data } = compaction;
  assert.deepEqual(live, {
    sessionUpdate: 'compaction_update',
    compactionId: `compaction-${compaction.seq}`,
    status: 'completed',
    summary: [{ type: 'text', text: contextCompactLine(data) }],
    _meta: {
      loom: {
        trigger: 'auto',
        through: data.through,
        before: data.before,
        after: data.after,
        pruned: data.pruned.length,
      },
    },
  });
  assert.match(
    contextCompactLine(data),
    /^compacted: \d+ tool results pruned \(\S+ → \S+ tokens\)$/,
  );

  // A client that loads the session is shown the compaction once, where it happened.
  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent, capabilities);
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    assert.deepEqual(log.updates.filter(isCompaction), [live]);
  });
});

test('loom acp: a client that does not take compactions is told nothing of one', async () => {
  const { home, workspace, model } = folders();
  const sessionId = await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const turn = await promptFor(agent, log, sessionId, 'read every file');
    assert.equal(turn.stopReason, 'end_turn');
    assert.equal(turn.text, 'read them all');
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    assert.deepEqual(log.updates.filter(isCompaction), []);
    return sessionId;
  });
  assert.equal(compactionsOf(home, sessionId).length, 1);
});
