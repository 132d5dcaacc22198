/**
 * A runtime with the built-in tools and plan mode over a scripted model, for plan tests: the
 * root agent's plan-mode service, a plan reviewer that answers as the test says, and helpers to
 * read what its session logged.
 */
import { Context } from '../../src/core/context.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import {
  noUser,
  rootOnlyQuestions,
  type UserAnswerer,
  userQuestionsKey,
} from '../../src/interaction/user-questions.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { installPlanMode, type PlanLayerSettings, planModeOf } from '../../src/plan/install.js';
import type { PlanModeService } from '../../src/plan/plan-mode.js';
import { builtinTools } from '../../src/tools/index.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface PlanFixture {
  runtime: AgentRuntime;
  handle: AgentHandle;
  service: PlanModeService;
  workspace: string;
}

export function planRuntime(
  script: ScriptedModelFile,
  options: { settings?: PlanLayerSettings; answerer?: UserAnswerer; home?: string } = {},
): { runtime: AgentRuntime; workspace: string } {
  const workspace = options.home ?? temporaryFolder('loom-plan-');
  const model = createScriptedModel(script);
  const root = new Context();
  const runtime = runtimeOver(model, workspace, root);
  root.provide(
    userQuestionsKey,
    rootOnlyQuestions(
      (sessionId) => runtime.find(sessionId)?.log.header,
      options.answerer ?? noUser,
    ),
  );
  runtime.offerTools(builtinTools({ workspace: { root: workspace, extraRoots: [] } }));
  installPlanMode(runtime, options.settings ?? {});
  return { runtime, workspace };
}

export function serviceOf(handle: AgentHandle): PlanModeService {
  const service = planModeOf(handle);
  if (!service) throw new Error('the agent has no plan mode');
  return service;
}

/** A new root agent already in plan mode. */
export function startPlanning(
  script: ScriptedModelFile,
  options: { settings?: PlanLayerSettings; answerer?: UserAnswerer } = {},
): PlanFixture {
  const { runtime, workspace } = planRuntime(script, options);
  const handle = runtime.start();
  const service = serviceOf(handle);
  service.setMode('plan');
  return { runtime, handle, service, workspace };
}

export type ResultData = SessionEvent<'tool/result'>['data'];

export function toolResults(events: readonly SessionEvent[], name?: string): ResultData[] {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event as SessionEvent<'tool/result'>).data)
    .filter((data) => name === undefined || data.name === name);
}

export function eventsOf<Type extends 'plan/mode' | 'plan/approved' | 'plan/presented'>(
  events: readonly SessionEvent[],
  type: Type,
): SessionEvent<Type>['data'][] {
  return events
    .filter((event) => event.type === type)
    .map((event) => (event as SessionEvent<Type>).data);
}

/** An answerer that gives every plan review `verdict` and records the plans it saw. */
export function planAnswerer(verdict: { approved: boolean; feedback?: string }): UserAnswerer & {
  plans: string[];
} {
  const plans: string[] = [];
  return {
    plans,
    async answer(request) {
      if (request.intent !== 'plan-review') throw new Error('expected a plan review');
      plans.push(request.plan);
      return { intent: 'plan-review', ...verdict };
    },
  };
}
