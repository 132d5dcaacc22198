/**
 * `/goal` over ACP, with Loom's ACP server in this process and the scripted model: the offered
 * command, a goal run to completion inside one prompt, each subcommand and its refusals as text,
 * a goal the model creates in a prompt turn, and session/cancel pausing a goal mid-round.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import type { GoalChangeEvent } from '../../src/goal/contract.js';
import type { ScriptedToolCall } from '../../src/llm/scripted-rules.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { ROUND, roundsLogged } from '../goal/goal-fixture.js';
import { initialize, isToolResult, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { waitUntil } from '../helpers/process-state.js';
import { sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const complete = (revision: number): ScriptedToolCall => ({
  name: 'update_goal',
  arguments: { goal_id: 'goal-1', revision, action: 'complete', reason: 'tests pass' },
});

/** Round `round` completes goal-1 at `revision`; every other round reports its number. */
const completesInRound = (round: number, revision: number) => ({
  when: `^\\[goal round ${round} of`,
  steps: [{ tools: [complete(revision)] }, { reply: 'done' }],
});
const reportsRound = { when: ROUND, reply: 'worked on round {{1}}' };
/** The prompt `set a goal then fail` creates goal-1, then its turn fails at the provider. */
const setsGoalThenFails = {
  when: '^set a goal then fail$',
  steps: [
    { tools: [{ name: 'create_goal', arguments: { objective: 'ship it' } }] },
    { error: 'the provider fell over' },
  ],
};

function storedEvents(home: string, sessionId: string): SessionEvent[] {
  const events = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(checkSessionInvariants(events), []);
  return events;
}

const goalChanges = (events: readonly SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'goal/change' ? [event.data as GoalChangeEvent] : []));

function folders(model: unknown, config?: string) {
  const home = temporaryFolder();
  if (config) writeFileSync(join(home, 'config.yaml'), config);
  return { home, workspace: temporaryFolder(), model: writeScriptedModel(home, model) };
}

test('acp /goal: the command is offered, and /goal OBJECTIVE runs rounds until the goal completes', async () => {
  const { home, workspace, model } = folders({ rules: [completesInRound(3, 1), reportsRound] });
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(offered.sessionUpdate === 'available_commands_update');
    assert.deepEqual(
      offered.availableCommands.map((command) => command.name),
      ['goal', 'plan', 'todos', 'usage', 'context', 'compact', 'rewind', 'diff'],
    );
    assert.match(
      offered.availableCommands[0]?.input?.hint ?? '',
      /OBJECTIVE.*pause.*resume.*clear.*show/,
    );

    const run = await promptFor(agent, log, sessionId, '/goal make the tests pass');
    assert.equal(run.stopReason, 'end_turn');
    assert.match(run.text, /^Goal goal-1 started \(at most 20 rounds\): make the tests pass/);
    assert.match(run.text, /worked on round 1[\s\S]*worked on round 2[\s\S]*done/);
    assert.match(run.text, /Goal goal-1 is complete after 3 rounds: tests pass$/);
    assert.equal(run.updates.filter(isToolResult).length, 1);
    assert.deepEqual(
      run.updates.filter((update) => update.sessionUpdate === 'user_message_chunk'),
      [],
      'a round prompt is not shown as the human message',
    );
    return sessionId;
  });
  const events = storedEvents(home, sessionId);
  assert.deepEqual(roundsLogged(events), [1, 2, 3]);
  assert.deepEqual(
    goalChanges(events).map((change) => [change.action, change.by]),
    [
      ['create', 'human'],
      ['complete', 'round'],
    ],
  );
});

test('acp /goal pause|resume|clear|show act as the human and reply refusals as text', async () => {
  const { home, workspace, model } = folders(
    { rules: [completesInRound(3, 3), reportsRound] },
    'goal:\n  maxRounds: 2\n',
  );
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const say = async (text: string) => {
      const answer = await promptFor(agent, log, sessionId, text);
      assert.equal(answer.stopReason, 'end_turn', text);
      return answer.text;
    };
    assert.match(await say('/goal show'), /^This session has no goal/);
    assert.match(await say('/goal pause'), /^\/goal pause refused \(GOAL_NOT_FOUND\)/);
    assert.match(await say('/goal'), /^Usage: \/goal OBJECTIVE/);

    const capped = await say('/goal write the docs');
    assert.match(capped, /worked on round 1[\s\S]*worked on round 2/);
    assert.match(capped, /Goal goal-1 reached its cap of 2 rounds and is still active/);
    const shown = await say('/goal show');
    assert.match(shown, /^Goal goal-1 \(revision 1\): write the docs$/m);
    assert.match(shown, /^Phase: active; disarmed in this process\.$/m);
    assert.match(shown, /^Rounds: 2 of 2\.$/m);
    assert.match(shown, /^ {2}create by human \(revision 1, active\)\n {2}round 1\n {2}round 2$/m);

    assert.match(
      await say('/goal write more docs'),
      /refused \(GOAL_EXISTS\): goal goal-1 is active/,
    );
    assert.equal(await say('/goal pause'), 'Goal goal-1 is paused.');
    assert.match(
      await say('/goal pause'),
      /^\/goal pause refused \(GOAL_PHASE\): goal goal-1 is paused/,
    );
    const resumed = await say('/goal resume 3');
    assert.match(resumed, /^Goal goal-1 resumed \(round 3 of 3 next\)/);
    assert.match(resumed, /done\n\nGoal goal-1 is complete after 3 rounds: tests pass$/);
    assert.match(await say('/goal resume'), /refused \(GOAL_PHASE\): goal goal-1 is complete/);
    assert.equal(await say('/goal clear'), 'Goal goal-1 is cleared.');
    assert.match(await say('/goal show'), /^This session has no goal/);
    return sessionId;
  });
  const events = storedEvents(home, sessionId);
  assert.deepEqual(roundsLogged(events), [1, 2, 3]);
  assert.deepEqual(
    goalChanges(events).map((change) => [change.action, change.by, change.revision]),
    [
      ['create', 'human', 1],
      ['pause', 'human', 2],
      ['resume', 'human', 3],
      ['complete', 'round', 4],
      ['clear', 'human', 5],
    ],
  );
});

test('acp: a goal the model creates in a prompt turn runs its rounds before the prompt returns', async () => {
  const { home, workspace, model } = folders({
    rules: [
      {
        when: '^keep at it$',
        steps: [
          { tools: [{ name: 'create_goal', arguments: { objective: 'ship it' } }] },
          { reply: 'goal set' },
        ],
      },
      completesInRound(2, 1),
      reportsRound,
    ],
  });
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const answer = await promptFor(agent, log, sessionId, 'keep at it');
    assert.equal(answer.stopReason, 'end_turn');
    assert.match(
      answer.text,
      /^goal set[\s\S]*worked on round 1[\s\S]*done\n\nGoal goal-1 is complete after 2 rounds: tests pass$/,
    );
    return sessionId;
  });
  const events = storedEvents(home, sessionId);
  assert.deepEqual(roundsLogged(events), [1, 2]);
  assert.deepEqual(
    goalChanges(events).map((change) => [change.action, change.by]),
    [
      ['create', 'model'],
      ['complete', 'round'],
    ],
  );
});

test('acp: session/cancel during a round pauses the goal as the human and the prompt returns cancelled', async () => {
  const { home, workspace, model } = folders({
    rules: [
      {
        when: '^\\[goal round 2 of',
        steps: [{ tools: [{ name: 'glob', arguments: { pattern: '*' } }] }, { hang: true }],
      },
      reportsRound,
    ],
  });
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const from = log.updates.length;
    const run = promptFor(agent, log, sessionId, '/goal tidy up');
    await log.waitFor(isToolResult, from);
    await agent.notify('session/cancel', { sessionId });
    const cancelled = await run;
    assert.equal(cancelled.stopReason, 'cancelled');
    assert.match(
      cancelled.text,
      /Goal goal-1 is paused after 2 rounds; \/goal resume continues it\.$/,
    );
    const shown = await promptFor(agent, log, sessionId, '/goal show');
    assert.match(shown.text, /^Phase: paused \(cancelled by the client\); disarmed/m);
    return sessionId;
  });
  const events = storedEvents(home, sessionId);
  assert.deepEqual(roundsLogged(events), [1, 2]);
  assert.deepEqual(
    goalChanges(events).map((change) => [change.action, change.by, change.reason]),
    [
      ['create', 'human', undefined],
      ['pause', 'human', 'cancelled by the client'],
    ],
  );
});

test('acp: a failed round or a failed arming turn leaves the goal active and disarmed, answered as such', async () => {
  const { home, workspace, model } = folders({
    rules: [
      setsGoalThenFails,
      { when: '^\\[goal round 2 of', error: 'the provider fell over again' },
      reportsRound,
    ],
  });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await assert.rejects(
      promptFor(agent, log, sessionId, 'set a goal then fail'),
      /the provider fell over/,
    );
    const shown = await promptFor(agent, log, sessionId, '/goal show');
    assert.match(shown.text, /^Phase: active; disarmed in this process\.$/m);
    assert.match(shown.text, /^Rounds: 0 of 20\.$/m);

    const resumed = await promptFor(agent, log, sessionId, '/goal resume');
    assert.equal(resumed.stopReason, 'end_turn');
    assert.match(resumed.text, /worked on round 1/);
    assert.match(
      resumed.text,
      /Goal goal-1 stopped: goal round ended with an error: .*the provider fell over again.*\/goal resume tries again\.$/,
    );
    const after = await promptFor(agent, log, sessionId, '/goal show');
    assert.match(after.text, /^Phase: active; disarmed in this process\.$/m);
    assert.match(after.text, /^Rounds: 2 of 20\.$/m);
  });
});

/**
 * What the server writes, with its first `tool_call` held until `release` resolves: the server's
 * writes back up behind it, as behind a client that reads its pipe slowly.
 */
function holdingFirstToolCall(release: () => Promise<void>) {
  return (output: WritableStream<Uint8Array>): WritableStream<Uint8Array> => {
    const decoder = new TextDecoder();
    let held = false;
    return new WritableStream<Uint8Array>({
      async write(chunk) {
        if (!held && decoder.decode(chunk).includes('"sessionUpdate":"tool_call"')) {
          held = true;
          await release();
        }
        const writer = output.getWriter();
        try {
          await writer.write(chunk);
        } finally {
          writer.releaseLock();
        }
      },
    });
  };
}

test('acp: a prompt whose turn fails is answered only after every update of that turn, also behind a slow reader', async () => {
  const { home, workspace, model } = folders({
    rules: [setsGoalThenFails],
  });
  // The turn has ended (its end is on disk) before the held update goes out.
  const turnEnded = () =>
    waitUntil(
      () => sessionPaths(home).some((path) => readFileSync(path, 'utf8').includes('"turn/end"')),
      'the failed turn to end',
      Number.POSITIVE_INFINITY,
    );
  await withAcpInProcess(
    { home, model, serverOutput: holdingFirstToolCall(turnEnded) },
    async (agent, log) => {
      await initialize(agent);
      const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
      await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
      const from = log.updates.length;
      await assert.rejects(
        agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: 'set a goal then fail' }],
        }),
        /the provider fell over/,
      );
      const before = log.updates.slice(from);
      assert.deepEqual(
        before.map((update) =>
          'status' in update ? `${update.sessionUpdate} ${update.status}` : update.sessionUpdate,
        ),
        [
          // Each request's size (context/usage) streams as usage_update before it is sent.
          'usage_update',
          'tool_call pending',
          'tool_call_update in_progress',
          'tool_call_update completed',
          'usage_update',
        ],
      );
    },
  );
});
