import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { promptAssemble } from '../../src/core/system-prompt.js';
import { requestPrompts } from '../helpers/session-files.js';
import { ROUND, startGoalAgent } from './goal-fixture.js';

/** The system prompt each request of a goal round carried, by round. */
function roundPrompts(
  events: readonly SessionEvent[],
  roundOf: (turnId: string) => number | undefined,
): Map<number, string> {
  const prompts = new Map<number, string>();
  for (const { header, system } of requestPrompts(events)) {
    const round = roundOf(header.turnId);
    if (round !== undefined) prompts.set(round, system);
  }
  return prompts;
}

test('the goal prompt section states the objective and the round and survives a prompt/assemble listener that removes it', async () => {
  const { handle, service, driver } = startGoalAgent({
    rules: [{ when: ROUND, reply: 'worked on round {{1}}' }],
  });
  const seen: string[][] = [];
  const stop = handle.context.use(promptAssemble, (draft) => {
    seen.push(draft.sections.map((section) => section.id));
    return {
      ...draft,
      sections: draft.sections
        .filter((section) => section.id !== 'goal')
        .map((section) => ({ ...section, text: section.text.replaceAll('# Goal', '') })),
    };
  });
  service.create({ objective: 'migrate every module to ESM', maxRounds: 2, by: 'human' });
  service.arm();
  assert.equal((await driver.whenSettled()).kind, 'round-cap');
  stop();
  assert.ok(
    seen.length >= 2 && seen.every((ids) => ids.includes('goal')),
    'the listener saw the goal section',
  );
  // roundOf answers only for the latest round, so read the rounds off the turn ids instead.
  const rounds = handle.log.events.filter(
    (event): event is SessionEvent<'user/message'> =>
      event.type === 'user/message' &&
      (event as SessionEvent<'user/message'>).data.source === 'goal',
  );
  const turnRound = new Map(rounds.map((event) => [event.data.turnId, event.data.round]));
  const prompts = roundPrompts(handle.log.events, (turnId) => turnRound.get(turnId));
  assert.equal(prompts.size, 2);
  for (const [round, system] of prompts) {
    assert.match(system, /# Goal\n/);
    assert.match(
      system,
      /This session has a persistent goal \(goal-1, revision 1\): migrate every module to ESM/,
    );
    assert.match(system, new RegExp(`Rounds started: ${round} of 2\\.`));
    assert.match(system, /Never claim completion you have not checked/);
  }
  handle.close();
});

test('the goal prompt section is empty when the session has no goal', async () => {
  const { handle } = startGoalAgent({ default: { reply: 'hello' } });
  await handle.agent.prompt('hi');
  const [request] = requestPrompts(handle.log.events);
  assert.ok(request);
  assert.doesNotMatch(request.system, /# Goal|persistent goal/);
  handle.close();
});
