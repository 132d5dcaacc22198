/**
 * The `exit_plan_mode {plan}` tool of root agents: presents the plan for review. Approved, plan
 * mode ends (`plan/approved`, then `plan/mode default`); rejected, plan mode stays and the
 * feedback is the result; presented headless, the turn ends with the plan logged. Review goes
 * through the scope's `PlanReviewer`, else the user-questions service (`plan-review`).
 */
import { agentAsksUser } from '../core/agent-hooks.js';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { type UserQuestions, userQuestionsKey } from '../interaction/user-questions.js';
import { PlanError, type PlanReviewer, planReviewerKey } from './contract.js';
import { EXIT_PLAN_MODE_TOOL } from './plan-guard.js';
import { planModeKey } from './plan-mode.js';

/** A reviewer that asks the user through the user-questions service. */
export function questionsReviewer(questions: UserQuestions): PlanReviewer {
  return {
    async review(plan, { sessionId, signal }) {
      const reply = await questions.ask({ intent: 'plan-review', plan }, { sessionId, signal });
      if (reply.intent !== 'plan-review') {
        throw new PlanError(
          'PLAN_NO_REVIEWER',
          `the plan review was answered with ${reply.intent} instead of a verdict`,
        );
      }
      if (reply.approved) return { kind: 'approved' };
      const feedback = reply.feedback?.trim();
      return {
        kind: 'rejected',
        feedback: feedback || 'the user rejected the plan without a reason',
      };
    },
  };
}

export function planTools(): ToolDefinition[] {
  const exitPlanMode = defineBuiltinTool({
    name: EXIT_PLAN_MODE_TOOL,
    description:
      "In plan mode only: present your finished plan for the user's approval. Approved, plan mode ends and you carry it out in this turn; otherwise the result is the user's feedback and you revise the plan.",
    arguments: (zod) =>
      zod.strictObject({
        plan: zod
          .string()
          .trim()
          .min(1)
          .describe(
            'The plan in markdown: concrete steps, the files to change, and how to check the result.',
          ),
      }),
    async execute(args, execution) {
      const service = execution.context.get(planModeKey);
      if (service.mode !== 'plan') {
        throw new PlanError(
          'PLAN_MODE_OFF',
          `${EXIT_PLAN_MODE_TOOL} works only in plan mode, and this session is not in plan mode: there is no plan to present, so go on with the task.`,
        );
      }
      let reviewer = execution.context.find(planReviewerKey);
      if (!reviewer) {
        reviewer = questionsReviewer(execution.context.get(userQuestionsKey));
        execution.context.emit(agentAsksUser, {
          agentId: execution.agentId,
          kind: 'plan-review',
          message: 'a plan waits for your review',
        });
      }
      const verdict = await reviewer.review(args.plan, {
        sessionId: execution.agentId,
        signal: execution.signal,
      });
      const log = service.log;
      switch (verdict.kind) {
        case 'approved':
          log.append('plan/approved', { plan: args.plan });
          service.setMode('default', 'approval');
          return 'The user approved the plan. Plan mode is over: carry the plan out now.';
        case 'rejected':
          return `The user did not approve the plan; plan mode continues. Their feedback:\n${verdict.feedback}\nRevise the plan (explore more if you need to) and present it again with ${EXIT_PLAN_MODE_TOOL}.`;
        case 'presented':
          log.append('plan/presented', { plan: args.plan });
          execution.concludeTurn();
          return 'The plan was shown to the user, who will review it later. Plan mode continues; the turn ends here.';
        default:
          throw new PlanError('PLAN_NO_REVIEWER', 'the plan reviewer gave no verdict');
      }
    },
  });
  return [exitPlanMode];
}
