/**
 * Schedules through `bin/loom` in real processes: `loom run` ends when its agent settles and
 * names the schedules still pending (an unref'd timer never holds it open), and in a `loom acp`
 * session an `after_seconds: 1` schedule wakes the idle agent, its turn streamed as session
 * updates. Waits are on output and updates, never on time.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { isEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import {
  initialize,
  messageText,
  promptFor,
  type UpdateLog,
  updateLog,
} from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { runScripted, scriptedFolders, startLoom } from './loom-process.js';

/** Spawns `loom acp` and runs `op` as an ACP client over its stdio; the child must exit 0 after. */
async function withLoomAcp<T>(
  options: { home: string; model: string },
  op: (agent: acp.ClientContext, log: UpdateLog) => Promise<T>,
): Promise<T> {
  const loom = startLoom(['acp', '--model', `scripted:${options.model}`], {
    home: options.home,
    keepStdinOpen: true,
  });
  const log = updateLog();
  const stream = acp.ndJsonStream(
    Writable.toWeb(loom.child.stdin),
    Readable.toWeb(loom.child.stdout) as ReadableStream<Uint8Array>,
  );
  const client = acp
    .client({ name: 'loom-test' })
    .onNotification('session/update', ({ params }) => log.push(params.update));
  try {
    return await client.connectWith(stream, (agent) => op(agent, log));
  } finally {
    if (!loom.child.stdin.writableEnded) loom.child.stdin.end();
    const { code } = await loom.exited;
    assert.equal(code, 0, loom.stderr());
  }
}

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
    // Nothing but the schedule starts another turn. Chunks may split the text (and on a slow
    // machine the woken turn may begin before the prompt's answer arrives), so wait until the
    // text streamed since the prompt holds the woken turn's answer.
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
});
