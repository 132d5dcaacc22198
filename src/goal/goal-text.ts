/**
 * What the model reads about its goal: the round prompt (its first line is exactly
 * `[goal round N of M] OBJECTIVE`), the protected prompt section, the JSON view the goal
 * tools return, and the short block restated after a compaction. Pure functions of the folded
 * goal; they never read the log themselves.
 */
import type { Goal, GoalSettings } from './contract.js';

/** The most of the previous round's report a round prompt repeats. */
const REPORT_LIMIT = 4000;

export function roundPrompt(goal: Goal, round: number, previousReport: string): string {
  const report = previousReport.trim();
  const shown = report.length > REPORT_LIMIT ? `${report.slice(0, REPORT_LIMIT)}… (cut)` : report;
  return [
    `[goal round ${round} of ${goal.maxRounds}] ${goal.objective}`,
    '',
    round === 1
      ? 'This is the first round.'
      : `The previous round reported:\n${shown === '' ? '(nothing)' : shown}`,
    '',
    `Goal ${goal.id}, revision ${goal.revision}. Work toward the objective, then end your turn with a short report: what you did, what you checked, what remains. The next round starts by itself.`,
    'When the objective is met and you have checked it, call update_goal with action "complete" and the evidence as the reason. If you cannot go on without the user, call update_goal with action "blocked" and what blocks you.',
  ].join('\n');
}

export function goalSection(goal: Goal | null, settings: GoalSettings): string {
  if (goal === null || goal.phase === 'complete') return '';
  const lines = [
    '# Goal',
    `This session has a persistent goal (${goal.id}, revision ${goal.revision}): ${goal.objective}`,
    `Phase: ${goal.phase}. Rounds started: ${goal.roundsStarted} of ${goal.maxRounds}.`,
  ];
  if (goal.phase !== 'active') {
    lines.push(
      `The goal is ${goal.phase}${goal.reason ? ` (${goal.reason})` : ''}; do not work on it unless the user asks.`,
    );
    return lines.join('\n');
  }
  lines.push(
    'Each round arrives as a message starting "[goal round N of M]". In a round, work toward the objective and end the turn with an honest report.',
    '- Call update_goal with action "complete" only when the objective is met and you have checked it (run the tests, read the output); give that evidence as the reason. Never claim completion you have not checked.',
    `- Call update_goal with action "blocked" only when you cannot make progress without the user, naming exactly what blocks you. From a round it is accepted once the same reason was reported in ${settings.blockedAfterConsecutiveRounds} consecutive rounds; before that, try a different approach.`,
    '- Editing, pausing, resuming or clearing the goal is for the user to ask for.',
  );
  return lines.join('\n');
}

/** The JSON object `create_goal`, `get_goal` and `update_goal` return. */
export function goalView(goal: Goal | null): Record<string, unknown> {
  if (goal === null) return { goal: null };
  const view: Record<string, unknown> = {
    goal_id: goal.id,
    revision: goal.revision,
    objective: goal.objective,
    phase: goal.phase,
    rounds_started: goal.roundsStarted,
    max_rounds: goal.maxRounds,
  };
  if (goal.reason !== undefined) view.reason = goal.reason;
  return view;
}

/**
 * The goal restated after a compaction: short, since the prompt section says the rest. Empty
 * when there is no goal or it is complete.
 */
export function goalStandingText(goal: Goal | null): string {
  if (goal === null || goal.phase === 'complete') return '';
  const reason = goal.reason !== undefined && goal.phase !== 'active' ? ` (${goal.reason})` : '';
  return [
    '# Goal',
    `${goal.id}, ${goal.phase}${reason}, ${goal.roundsStarted} of ${goal.maxRounds} rounds started: ${goal.objective}`,
  ].join('\n');
}
