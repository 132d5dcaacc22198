import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { agentTurnEnd } from '../../src/core/agent-hooks.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { SessionStore } from '../../src/core/session-store.js';
import { goalOf } from '../../src/goal/install.js';
import { GOAL_TOOL_NAMES } from '../../src/goal/tools.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { deferred } from '../helpers/deferred.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { goalRuntime, parts, ROUND, roundsLogged } from './goal-fixture.js';

/** Rounds keep working (none completes); a human asking for the status gets an answer. */
const script: ScriptedModelFile = {
  rules: [
    { when: '^status\\?', reply: 'round 1 done, still working' },
    { when: ROUND, reply: 'worked on round {{1}}' },
  ],
};

/**
 * A session whose goal is active and was armed when its writer let go of it: round 1 ran, and
 * the writer closed the session as round 1 ended, while still armed.
 */
async function sessionLeftArmed(): Promise<{
  home: string;
  sessionId: string;
  events: SessionEvent[];
}> {
  const { runtime, home } = goalRuntime(script);
  const handle = runtime.start();
  const { service } = parts(handle);
  const closing = deferred<{ armed: boolean; closed: Promise<void> }>();
  const stop = handle.context.on(agentTurnEnd, ({ outcome }) => {
    if (service.roundOf(outcome.turnId) !== 1) return;
    const armed = service.activation === 'armed';
    handle.close();
    // Registered after close() registered its own, so it resolves once the log is closed.
    closing.resolve({ armed, closed: handle.agent.whenIdle() });
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  const { armed, closed } = await closing.promise;
  await closed;
  stop();
  assert.ok(armed, 'the writer was armed when it closed the session');
  assert.ok(handle.log.closed, 'the writer closed the session');
  const events = [...handle.log.events];
  assert.deepEqual(roundsLogged(events), [1]);
  return { home, sessionId: handle.log.header.sessionId, events };
}

/** Prompts a human question, then waits for the driver to look and settle; returns the settlement. */
async function askStatus(handle: ReturnType<ReturnType<typeof goalRuntime>['runtime']['start']>) {
  const outcome = await handle.agent.prompt('status?');
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.text, 'round 1 done, still working');
  return parts(handle).driver.whenSettled();
}

test('a session resumed by id starts disarmed and starts no round after a human prompt', async () => {
  const written = await sessionLeftArmed();
  const { runtime } = goalRuntime(script, {}, written.home);
  const handle = runtime.resume(written.sessionId);
  const { service } = parts(handle);
  assert.equal(service.goal?.phase, 'active');
  assert.equal(service.activation, 'disarmed');
  const settlement = await askStatus(handle);
  assert.equal(settlement.kind, 'disarmed');
  assert.deepEqual(roundsLogged(handle.log.events), [1], 'no round started after the human turn');
  handle.close();
});

test('a session killed during a round and reopened after repair is disarmed and starts no round', async () => {
  const { runtime, home } = goalRuntime({
    rules: [
      { when: '^\\[goal round 2 of', hang: true },
      { when: ROUND, reply: 'worked on round {{1}}' },
    ],
  });
  const writer = runtime.start();
  const { service } = parts(writer);
  const sessionId = writer.log.header.sessionId;
  const inRound2 = deferred();
  const stop = writer.log.onAppend((event) => {
    const { data } = event as SessionEvent<'request/header'>;
    if (event.type === 'request/header' && service.roundOf(data.turnId) === 2) inRound2.resolve();
  });
  service.create({ objective: 'make the tests pass', by: 'human' });
  service.arm();
  await inRound2.promise;
  stop();
  // The file as a SIGKILL would leave it: round 2 open, no turn/end.
  writer.log.flush();
  const crashHome = temporaryFolder('loom-goal-crash-');
  const store = new SessionStore(crashHome);
  mkdirSync(store.directory, { recursive: true });
  copyFileSync(writer.log.path, store.pathOf(sessionId));
  writer.close();
  assert.equal(home === crashHome, false);

  const reopened = goalRuntime(script, {}, crashHome).runtime.resume(sessionId);
  const reopenedGoal = parts(reopened).service;
  const repairedEnd = reopened.log.events.find(
    (event) =>
      event.type === 'turn/end' &&
      reopenedGoal.roundOf((event as SessionEvent<'turn/end'>).data.turnId) === 2,
  );
  assert.ok(repairedEnd, 'repair closed round 2');
  assert.equal(reopenedGoal.goal?.roundsStarted, 2);
  assert.equal(reopenedGoal.activation, 'disarmed');
  const outcome = await reopened.agent.prompt('status?');
  assert.equal(outcome.reason, 'completed');
  assert.equal((await parts(reopened).driver.whenSettled()).kind, 'disarmed');
  assert.deepEqual(
    roundsLogged(reopened.log.events),
    [1, 2],
    'no round started after the human turn',
  );
  reopened.close();
});

test('a root fork seeded with an armed goal session starts disarmed and starts no round', async () => {
  const written = await sessionLeftArmed();
  const { runtime } = goalRuntime(script);
  const fork = runtime.start({ seed: written.events, parentSession: written.sessionId });
  const { service } = parts(fork);
  assert.equal(service.goal?.phase, 'active');
  assert.equal(service.activation, 'disarmed');
  const settlement = await askStatus(fork);
  assert.equal(settlement.kind, 'disarmed');
  assert.deepEqual(roundsLogged(fork.log.events), [1], 'no round started after the human turn');
  fork.close();
});

test('a delegated fork seeded with a goal session has no goal tools and no goal layer', async () => {
  const written = await sessionLeftArmed();
  const { runtime } = goalRuntime({ default: { reply: 'child here' } });
  const fork = runtime.start({
    seed: written.events,
    parentSession: written.sessionId,
    delegationDepth: 1,
  });
  assert.equal(goalOf(fork), undefined);
  const names = fork.tools.visible().map((tool) => tool.name);
  for (const name of GOAL_TOOL_NAMES) assert.ok(!names.includes(name), `the fork has ${name}`);
  await fork.agent.prompt('hello');
  assert.deepEqual(roundsLogged(fork.log.events), [1], 'only the seeded round');
  fork.close();
});
