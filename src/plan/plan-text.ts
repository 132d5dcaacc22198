/**
 * The text of the protected `plan` prompt section: empty outside plan mode, and in plan mode
 * the rules of planning. It says what the guard enforces but never stands in for it.
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
