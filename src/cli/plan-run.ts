/**
 * Plan mode in `loom run`: `--plan` starts (or continues) the session in plan mode. A plan the
 * model presents is approved at once with `--approve-plan` and the turn goes on; otherwise it
 * is put to whoever answers the run's questions, and when nobody can (headless, `NO_USER`) the
 * run ends on it: the plan is printed with the session id and the commands that approve it or
 * give feedback, and the run exits 0 with plan mode still on. It never
 * approves a plan without `--approve-plan` or an answer.
 */

import { LoomError } from '../base/errors.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { SessionEvent } from '../core/session-events.js';
import { userQuestionsKey } from '../interaction/user-questions.js';
import { type PlanReviewer, planReviewerKey } from '../plan/contract.js';
import { planModeOf } from '../plan/install.js';
import { questionsReviewer } from '../plan/tools.js';

export interface PlanRunOptions {
  plan?: boolean;
  approvePlan?: boolean;
}

/** The reviewer of a `loom run`: approves with `--approve-plan`, else asks, else presents. */
export function runPlanReviewer(handle: AgentHandle, approve: boolean): PlanReviewer {
  if (approve) return { review: async () => ({ kind: 'approved' }) };
  return {
    async review(plan, options) {
      const questions = handle.context.find(userQuestionsKey);
      if (!questions) return { kind: 'presented' };
      try {
        return await questionsReviewer(questions).review(plan, options);
      } catch (error) {
        if (error instanceof LoomError && error.code === 'NO_USER') return { kind: 'presented' };
        throw error;
      }
    },
  };
}

/**
 * Sets the run's plan mode and reviewer on the root agent; `print` gets the text of a plan that
 * ends the run (with --json the `plan/presented` event carries it instead).
 */
export function preparePlanRun(
  handle: AgentHandle,
  options: PlanRunOptions,
  print: ((text: string) => void) | undefined,
): void {
  const service = planModeOf(handle);
  if (!service) return;
  if (options.plan) service.setMode('plan', 'user');
  handle.onClose(
    handle.context.provide(planReviewerKey, runPlanReviewer(handle, options.approvePlan === true)),
  );
  if (!print) return;
  handle.onClose(
    handle.log.onAppend((event) => {
      if (event.type !== 'plan/presented') return;
      const { plan } = (event as SessionEvent<'plan/presented'>).data;
      const session = handle.log.header.sessionId;
      print(
        `\nPlan (not approved; plan mode stays on) in session ${session}:\n${plan}\n\nTo carry it out: loom run --session ${session} --approve-plan "go ahead"\nTo change it: loom run --session ${session} --plan "FEEDBACK"\n`,
      );
    }),
  );
}
