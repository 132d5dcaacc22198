/**
 * The text of the protected `plan` prompt section (empty outside plan mode, and in plan mode the
 * rules of planning) and of plan mode's block restated after a compaction. It says what the
 * guard enforces but never stands in for it.
 */
import { EXIT_PLAN_MODE_TOOL } from './plan-guard.js';

export function planSection(inPlanMode: boolean, enforced: boolean): string {
  if (!inPlanMode) return '';
  return [
    '# Plan mode',
    'You are in plan mode: the user wants a plan before any change is made.',
    '- Explore read-only: read files, search, and run only commands that change nothing. Do not write or edit files, start background work, or make any other change.',
    enforced
      ? '- Changing tools are refused while plan mode lasts.'
      : '- Nothing stops you technically; the user relies on you not to change anything.',
    `- When you know what to do, present a concrete step-by-step plan (files to change, how, and how to check it) by calling ${EXIT_PLAN_MODE_TOOL} with the plan in markdown. If the user approves, plan mode ends and you carry it out; if they give feedback, revise the plan and present it again.`,
    `- Questions to the user belong in your plan or your answer; do not call ${EXIT_PLAN_MODE_TOOL} before you have a plan.`,
  ].join('\n');
}

/**
 * Plan mode restated after a compaction: that it is on (and whether the guard enforces it), or
 * else the latest plan the user approved, verbatim, so the agent keeps carrying it out. Empty
 * when neither stands.
 */
export function planStandingText(state: {
  inPlanMode: boolean;
  enforced: boolean;
  approvedPlan?: string | undefined;
}): string {
  if (state.inPlanMode) {
    const enforcement = state.enforced
      ? 'enforced: changing tools are refused'
      : 'not enforced: nothing stops changes, the user relies on you';
    return [
      '# Plan mode',
      `Plan mode is on (${enforcement}). Explore read-only and present your plan with ${EXIT_PLAN_MODE_TOOL}.`,
    ].join('\n');
  }
  if (state.approvedPlan === undefined) return '';
  return [
    '# Approved plan',
    'The user approved this plan and plan mode ended with it:',
    '',
    state.approvedPlan,
  ].join('\n');
}
