/**
 * `/goal` through `bin/loom acp` in real processes: a goal cut off in round 2 when the client
 * disconnects stays active, and `session/load` in a new process leaves it disarmed: the
 * replay shows no round prompt as the human's, a plain prompt is answered and starts no round,
 * and `/goal resume` then finishes it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { ROUND, roundsLogged } from '../goal/goal-fixture.js';
import { initialize, isToolResult, promptFor } from '../helpers/acp-client.js';
import { withLoomAcp } from './loom-acp.js';
import { scriptedFolders } from './loom-process.js';

const model = {
  rules: [
    {
      when: '^\\[goal round 2 of',
      steps: [{ tools: [{ name: 'glob', arguments: { pattern: '*' } }] }, { hang: true }],
    },
    {
      when: '^\\[goal round 3 of',
      steps: [
        {
          tools: [
            {
              name: 'update_goal',
              arguments: { goal_id: 'goal-1', revision: 1, action: 'complete', reason: 'all done' },
            },
          ],
        },
        { reply: 'finished' },
      ],
    },
    { when: ROUND, reply: 'worked on round {{1}}' },
    { when: '^status\\?$', reply: 'round 2 was cut short' },
  ],
};

test('loom acp: session/load leaves a goal disarmed; a plain prompt starts no round, /goal resume finishes it', async () => {
  const folders = scriptedFolders(model);
  const { home, workspace } = folders;
  const sessionId = await withLoomAcp(folders, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const run = agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/goal finish the work' }],
    });
    // The client disconnects in round 2, so the prompt must not answer before then.
    const answered = run.then(
      () => 'the prompt answered',
      (error: unknown) => `the prompt failed: ${error}`,
    );
    const roundTwo = log.waitFor(isToolResult).then(() => undefined);
    assert.equal(await Promise.race([roundTwo, answered]), undefined);
    return sessionId;
  });
  const cut = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(roundsLogged(cut), [1, 2]);

  await withLoomAcp(folders, async (agent, log) => {
    await initialize(agent);
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    assert.ok(log.updates.some((update) => update.sessionUpdate === 'available_commands_update'));
    assert.deepEqual(
      log.updates.filter((update) => update.sessionUpdate === 'user_message_chunk'),
      [],
      'round prompts are not replayed as the human messages',
    );

    const status = await promptFor(agent, log, sessionId, 'status?');
    assert.equal(status.stopReason, 'end_turn');
    assert.equal(status.text, 'round 2 was cut short');
    const shown = await promptFor(agent, log, sessionId, '/goal show');
    assert.match(shown.text, /^Phase: active; disarmed in this process\.$/m);
    assert.match(shown.text, /^Rounds: 2 of 20\.$/m);

    const resumed = await promptFor(agent, log, sessionId, '/goal resume');
    assert.equal(resumed.stopReason, 'end_turn');
    assert.match(resumed.text, /^Goal goal-1 resumed \(round 3 of 20 next\)[\s\S]*finished/);
    assert.match(resumed.text, /Goal goal-1 is complete after 3 rounds: all done$/);
  });
  const events = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(roundsLogged(events), [1, 2, 3]);
  assert.deepEqual(checkSessionInvariants(events), []);
});
