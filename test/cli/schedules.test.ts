/**
 * Schedules through `bin/loom` in real processes: `loom run` ends when its agent settles and
 * names the schedules still pending (an unref'd timer never holds it open), and in a `loom acp`
 * session an `after_seconds: 1` schedule wakes the idle agent, its turn streamed as session
 * updates. Waits are on output and updates, never on time.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { isEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { initialize, messageText, promptFor } from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { withLoomAcp } from './loom-acp.js';
import { runScripted, scriptedFolders } from './loom-process.js';

function remindModel(afterSeconds: number) {
  return {
    rules: [
      callsThenReply(
        '^remind me',
        [
          {
            name: 'schedule_create',
            arguments: { prompt: 'check the build', after_seconds: afterSeconds },
          },
        ],
        'set',
      ),
      { when: '^\\[schedule (schedule-\\d+)\\] (.*)', reply: 'woken by {{1}}: {{2}}' },
    ],
    default: { reply: 'pong' },
  };
}

test('loom run ends when the agent settles and lists the schedules still pending', async () => {
  const folders = scriptedFolders(remindModel(3600));
  const result = await runScripted(folders, 'remind me in an hour');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'set');
  assert.match(
    result.stderr,
    /pending schedules: schedule-1 in 1 h: check the build; they fire only while a process holds the session: loom run --session \S+/,
  );
});

test('loom acp: an after_seconds 1 schedule wakes the idle agent and its turn is streamed', {
  timeout: 60_000,
}, async () => {
  const folders = scriptedFolders(remindModel(1));
  const sessionId = await withLoomAcp(folders, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', {
      cwd: folders.workspace,
      mcpServers: [],
    });
    const from = log.updates.length;
    const set = await promptFor(agent, log, sessionId, 'remind me in a second');
    assert.equal(set.stopReason, 'end_turn');
    assert.match(set.text, /^set/);
    // Nothing but the schedule starts another turn. Chunks may split the text, so wait until
    // the text streamed since the prompt holds the woken turn's answer.
    await log.waitFor(
      () => messageText(log.updates.slice(from)).includes('woken by schedule-1'),
      from,
    );
    // A prompt queues behind the woken turn, so once it answers that turn has ended.
    const after = await promptFor(agent, log, sessionId, 'ping');
    assert.equal(after.stopReason, 'end_turn');
    assert.equal(
      messageText(log.updates.slice(from)),
      'setwoken by schedule-1: check the buildpong',
    );
    return sessionId;
  });
  const stored = loadSessionFile(join(folders.home, 'sessions', `${sessionId}.jsonl`));
  assert.deepEqual(checkSessionInvariants(stored.events), []);
  const scheduled = stored.events.flatMap((event) =>
    isEvent(event, 'user/message') && event.data.source === 'schedule' ? [event.data] : [],
  );
  assert.deepEqual(
    scheduled.map((message) => [message.delivery, message.text]),
    [['followup', '[schedule schedule-1] check the build']],
  );
  const fired = stored.events.filter((event) => isEvent(event, 'schedule/fire'));
  assert.equal(fired.length, 1);
  // It fired on an idle agent: after the turn that set it had ended, before any other began.
  const firstEnd = stored.events.find((event) => isEvent(event, 'turn/end'));
  const secondStart = stored.events.filter((event) => isEvent(event, 'turn/start'))[1];
  assert.ok(firstEnd && secondStart && fired[0]);
  assert.ok(firstEnd.seq < fired[0].seq && fired[0].seq < secondStart.seq);
});
