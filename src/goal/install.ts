/**
 * Installs layer 4 into a runtime: every root agent (delegation depth 0) gets a goal service
 * folded from its session, a round driver, the goal tools, the protected `goal` prompt
 * section and its goal restated after a compaction (`agent/standing-state`). Children never
 * see any of it. Opening a session, however it is opened, starts disarmed: nothing here ever
 * arms a goal by itself.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addStandingState } from '../core/standing-state.js';
import type { GoalSettings } from './contract.js';
import { GoalService, goalServiceKey } from './goal-service.js';
import { goalSection, goalStandingText } from './goal-text.js';
import { RoundDriver, roundDriverKey } from './round-driver.js';
import { goalTools } from './tools.js';

export const GOAL_SECTION = 'goal';
/** Late in the prompt: it changes every round, so what comes before it stays cacheable. */
const GOAL_SECTION_ORDER = 900;

export interface GoalLayer {
  dispose: Disposer;
}

/** The goal service and driver of a root agent the layer set up; absent for a child. */
export function goalOf(
  handle: AgentHandle,
): { service: GoalService; driver: RoundDriver } | undefined {
  const service = handle.context.find(goalServiceKey);
  const driver = handle.context.find(roundDriverKey);
  return service && driver ? { service, driver } : undefined;
}

export function installGoals(
  runtime: AgentRuntime,
  settings: Partial<GoalSettings> = {},
): GoalLayer {
  const tools = goalTools();
  const setUp = (handle: AgentHandle): Disposer | undefined => {
    if (handle.log.header.delegationDepth !== 0) return undefined;
    const service = new GoalService({ log: handle.log, settings });
    const driver = new RoundDriver({ handle, service });
    const disposers: Disposer[] = [
      handle.context.provide(goalServiceKey, service),
      handle.context.provide(roundDriverKey, driver),
      ...tools.map((tool) => handle.tools.register(tool)),
      handle.prompt.section({
        id: GOAL_SECTION,
        order: GOAL_SECTION_ORDER,
        text: () => (service.problem ? '' : goalSection(service.goal, service.settings)),
      }),
      handle.prompt.protect({ section: GOAL_SECTION, owner: 'goal' }),
      addStandingState(handle.context, handle.agent.id, () =>
        service.problem ? '' : goalStandingText(service.goal),
      ),
      () => driver.dispose(),
      () => service.dispose(),
    ];
    return disposeAll(disposers);
  };
  const disposers: Disposer[] = [
    runtime.toolCatalog.declare(tools, {
      notForChildren: 'only root agents get it: a goal is pursued by a root session',
    }),
    runtime.onAgent(setUp),
  ];
  return { dispose: disposeAll(disposers) };
}
