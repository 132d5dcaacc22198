/**
 * A runtime with the goal layer over a scripted model, for goal tests: the root agent's goal
 * service and round driver, and helpers to read what its session logged. Tests wait on the
 * driver's settlement or on logged events, never on time.
 */
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { GoalChangeEvent, GoalSettings } from '../../src/goal/contract.js';
import type { GoalService } from '../../src/goal/goal-service.js';
import { goalOf, installGoals } from '../../src/goal/install.js';
import type { RoundDriver } from '../../src/goal/round-driver.js';
import { createScriptedModel, type ScriptedModelClient } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface GoalFixture {
  runtime: AgentRuntime;
  handle: AgentHandle;
  service: GoalService;
  driver: RoundDriver;
  home: string;
  /** The scripted model every agent of the runtime uses. */
  model: ScriptedModelClient;
}

export function goalRuntime(
  script: ScriptedModelFile,
  settings: Partial<GoalSettings> = {},
  home = temporaryFolder('loom-goal-'),
): { runtime: AgentRuntime; home: string; model: ScriptedModelClient } {
  const model = createScriptedModel(script);
  const runtime = runtimeOver(model, home);
  installGoals(runtime, settings);
  return { runtime, home, model };
}

export function startGoalAgent(
  script: ScriptedModelFile,
  settings: Partial<GoalSettings> = {},
): GoalFixture {
  const { runtime, home, model } = goalRuntime(script, settings);
  const handle = runtime.start();
  return { runtime, handle, home, model, ...parts(handle) };
}

export function parts(handle: AgentHandle): { service: GoalService; driver: RoundDriver } {
  const goal = goalOf(handle);
  if (!goal) throw new Error('the agent has no goal layer');
  return goal;
}

/** The `[goal round N of M]` user messages logged, as round numbers. */
export function roundsLogged(events: readonly SessionEvent[]): number[] {
  return events.flatMap((event) =>
    event.type === 'user/message' && (event as SessionEvent<'user/message'>).data.source === 'goal'
      ? [(event as SessionEvent<'user/message'>).data.round as number]
      : [],
  );
}

/** A rule answering round N of a goal (rules see the round prompt's first line). */
export const ROUND = '^\\[goal round (\\d+) of';

/** A scripted step calling `update_goal` with `args`. */
export function updateGoalStep(args: Record<string, unknown>): {
  tools: { name: string; arguments: Record<string, unknown> }[];
} {
  return { tools: [{ name: 'update_goal', arguments: args }] };
}

/** The `goal/change` events logged, oldest first. */
export function goalChanges(events: readonly SessionEvent[]): GoalChangeEvent[] {
  return events.flatMap((event) =>
    event.type === 'goal/change' ? [(event as SessionEvent<'goal/change'>).data] : [],
  );
}

/** The `tool/result` data of tool `name`, oldest first. */
export function toolResultsOf(
  events: readonly SessionEvent[],
  name: string,
): SessionEvent<'tool/result'>['data'][] {
  return events.flatMap((event) => {
    if (event.type !== 'tool/result') return [];
    const { data } = event as SessionEvent<'tool/result'>;
    return data.name === name ? [data] : [];
  });
}

/** The `user/message` events logged, oldest first. */
export function userMessages(events: readonly SessionEvent[]): SessionEvent<'user/message'>[] {
  return events.filter(
    (event): event is SessionEvent<'user/message'> => event.type === 'user/message',
  );
}

/**
 * A realistic goal session, written by a real runtime over the scripted model: the human asks
 * for a goal (create_goal, max 4 rounds), rounds 1 and 2 call get_goal, the human pauses it
 * after round 2, asks a question between rounds, resumes it, round 3 works and round 4
 * completes it. Revisions: create 1, pause 2, resume 3, complete 4.
 */
export async function writeGoalSession(): Promise<{
  home: string;
  sessionId: string;
  path: string;
  events: readonly SessionEvent[];
}> {
  const { runtime, home } = goalRuntime({
    rules: [
      {
        when: '^keep working',
        steps: [
          {
            tools: [
              {
                name: 'create_goal',
                arguments: { objective: 'make the tests pass', max_rounds: 4 },
              },
            ],
          },
          { reply: 'goal set' },
        ],
      },
      {
        when: '^pause',
        steps: [
          updateGoalStep({ goal_id: 'goal-1', revision: 1, action: 'pause' }),
          { reply: 'paused' },
        ],
      },
      {
        when: '^resume',
        steps: [
          updateGoalStep({ goal_id: 'goal-1', revision: 2, action: 'resume' }),
          { reply: 'resumed' },
        ],
      },
      { when: '^how is it going', reply: 'two rounds done, paused' },
      {
        when: '^\\[goal round 4 of',
        steps: [
          updateGoalStep({
            goal_id: 'goal-1',
            revision: 3,
            action: 'complete',
            reason: 'npm test passes: 12 of 12',
          }),
          { reply: 'complete: npm test passes' },
        ],
      },
      {
        when: ROUND,
        steps: [{ tools: [{ name: 'get_goal' }] }, { reply: 'worked on round {{1}}' }],
      },
    ],
  });
  const handle = runtime.start();
  const { service, driver } = parts(handle);
  const stopPausing = handle.log.onAppend((event) => {
    const { data } = event as SessionEvent<'user/message'>;
    if (event.type === 'user/message' && data.source === 'goal' && data.round === 2) {
      handle.agent.followup('pause the goal please');
    }
  });
  await handle.agent.prompt('keep working until the tests pass');
  const paused = await driver.whenSettled();
  stopPausing();
  if (paused.kind !== 'paused') throw new Error(`expected a paused goal, got ${paused.kind}`);
  await handle.agent.prompt('how is it going?');
  await handle.agent.prompt('resume the goal');
  const done = await driver.whenSettled();
  if (done.kind !== 'complete') throw new Error(`expected a complete goal, got ${done.kind}`);
  if (service.goal?.roundsStarted !== 4) throw new Error('expected four rounds');
  const events = [...handle.log.events];
  const sessionId = handle.log.header.sessionId;
  const path = handle.log.path;
  handle.close();
  return { home, sessionId, path, events };
}
