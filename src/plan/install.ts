/**
 * Installs plan mode into a runtime: every root agent gets its plan-mode service (folded from
 * its log), `exit_plan_mode`, the protected `plan` prompt section at order 50, its mode or
 * approved plan restated after a compaction (`agent/standing-state`), and the guard;
 * every subagent gets the guard too, following the mode of its root session, so a planning
 * agent cannot change files through a child. Children never get `exit_plan_mode`.
 */
import type { PermissionRule } from '../config/schema.js';
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addStandingState } from '../core/standing-state.js';
import { toolsAvailable } from '../core/tool-presentation.js';
import { DEFAULT_PLAN_SETTINGS, type PlanSettings } from './contract.js';
import { deniedInPlanMode, planModeVerdict, readOnlyShell } from './plan-guard.js';
import { PlanModeService, planModeKey } from './plan-mode.js';
import { planSection, planStandingText } from './plan-text.js';
import { planTools } from './tools.js';

export const PLAN_SECTION = 'plan';
/** Early: it frames everything after it, and changes only when the mode does. */
const PLAN_SECTION_ORDER = 50;

export interface PlanLayerSettings extends Partial<PlanSettings> {
  /** The config's permission rules: their bash `allow` rules say which commands are read-only. */
  permissions?: readonly PermissionRule[];
}

export interface PlanLayer {
  dispose: Disposer;
}

/** The plan-mode service of a root agent the layer set up; absent for a child. */
export function planModeOf(handle: AgentHandle): PlanModeService | undefined {
  return handle.context.find(planModeKey);
}

export function installPlanMode(
  runtime: AgentRuntime,
  settings: PlanLayerSettings = {},
): PlanLayer {
  const { permissions = [], ...rest } = settings;
  const planSettings: PlanSettings = { ...DEFAULT_PLAN_SETTINGS, ...rest };
  const isReadOnlyCommand = readOnlyShell(permissions);
  const tools = planTools();

  /** The service of the root session above `handle` (itself for a root), if it is live here. */
  const rootServiceOf = (handle: AgentHandle): PlanModeService | undefined => {
    let current: AgentHandle | undefined = handle;
    const seen = new Set<string>();
    while (current && current.log.header.delegationDepth > 0) {
      const parent = current.log.header.parentSession;
      if (parent === null || seen.has(parent)) return undefined;
      seen.add(parent);
      current = runtime.find(parent);
    }
    return current ? planModeOf(current) : undefined;
  };

  const setUp = (handle: AgentHandle): Disposer => {
    const disposers: Disposer[] = [];
    if (handle.log.header.delegationDepth === 0) {
      const service = new PlanModeService(handle.log, planSettings);
      disposers.push(
        handle.context.provide(planModeKey, service),
        ...tools.map((tool) => handle.tools.register(tool)),
        handle.prompt.section({
          id: PLAN_SECTION,
          order: PLAN_SECTION_ORDER,
          text: () => planSection(service.mode === 'plan', service.enforced),
        }),
        handle.prompt.protect({ section: PLAN_SECTION, owner: 'plan' }),
        addStandingState(handle.context, handle.agent.id, () =>
          planStandingText({
            inPlanMode: service.mode === 'plan',
            enforced: service.enforced,
            approvedPlan: service.approvedPlan,
          }),
        ),
        () => service.dispose(),
      );
    }
    disposers.push(
      handle.tools.guard((request) =>
        rootServiceOf(handle)?.enforced ? planModeVerdict(request, isReadOnlyCommand) : undefined,
      ),
      // Tools described ahead of calls (Code Mode's SDK) leave out what plan mode always denies.
      handle.context.use(toolsAvailable, (input, next) =>
        next(
          rootServiceOf(handle)?.enforced
            ? { ...input, tools: input.tools.filter((tool) => !deniedInPlanMode(tool.name)) }
            : input,
        ),
      ),
    );
    return disposeAll(disposers);
  };
  const disposers: Disposer[] = [
    runtime.toolCatalog.declare(tools, {
      notForChildren: "only root agents get it: plan mode is a root session's",
    }),
    runtime.onAgent(setUp),
  ];
  return { dispose: disposeAll(disposers) };
}
