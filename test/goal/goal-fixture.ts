/**
 * A runtime with the goal layer over a scripted model, for goal tests: the root agent's goal
 * service and round driver, and helpers to read what its session logged. Tests wait on the
 * driver's settlement or on logged events, never on time.
 */
import { Context } from '../../src/core/context.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { GoalSettings } from '../../src/goal/contract.js';
import type { GoalService } from '../../src/goal/goal-service.js';
import { goalOf, installGoals } from '../../src/goal/install.js';
import type { RoundDriver } from '../../src/goal/round-driver.js';
import { createScriptedModel } from '../../src/testing/scripted-model.js';
import type { ScriptedModelFile } from '../../src/testing/scripted-rules.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface GoalFixture {
  runtime: AgentRuntime;
  handle: AgentHandle;
  service: GoalService;
  driver: RoundDriver;
  home: string;
}

export function goalRuntime(
  script: ScriptedModelFile,
  settings: Partial<GoalSettings> = {},
  home = temporaryFolder('loom-goal-'),
): { runtime: AgentRuntime; home: string } {
  const model = createScriptedModel(script);
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: home,
    resolveModel: () => model,
  });
  installGoals(runtime, settings);
  return { runtime, home };
}

export function startGoalAgent(
  script: ScriptedModelFile,
  settings: Partial<GoalSettings> = {},
): GoalFixture {
  const { runtime, home } = goalRuntime(script, settings);
  const handle = runtime.start();
  return { runtime, handle, home, ...parts(handle) };
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
