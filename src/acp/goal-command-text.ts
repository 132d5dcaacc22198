/**
 * The text side of `/goal` over ACP: the available command a client offers, parsing a prompt
 * that starts with `/goal`, and the replies (the goal shown, why rounds stopped). Pure: it reads
 * goals and settlements and never changes one.
 */
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import type { Goal, GoalActivation, GoalSettlement } from '../goal/contract.js';
import type { GoalHistoryEntry } from '../goal/fold.js';

/** What a `/goal` prompt asks for. */
export type GoalCommand =
  | { kind: 'create'; objective: string }
  | { kind: 'pause' }
  | { kind: 'resume'; maxRounds?: number }
  | { kind: 'clear' }
  | { kind: 'show' }
  | { kind: 'usage' };

export const GOAL_COMMAND_NAME = 'goal';

export const USAGE =
  'Usage: /goal OBJECTIVE starts a goal and runs rounds until it settles; /goal pause, /goal resume [MAX_ROUNDS], /goal clear, /goal show.';

/** The command `available_commands_update` offers (a client shows it as `/goal`). */
export const GOAL_AVAILABLE_COMMAND: AvailableCommand = {
  name: GOAL_COMMAND_NAME,
  description:
    'A persistent goal worked on round after round: /goal OBJECTIVE starts it; /goal pause, /goal resume [MAX_ROUNDS], /goal clear, /goal show.',
  input: { hint: 'OBJECTIVE, or pause | resume [MAX_ROUNDS] | clear | show' },
};

const COMMAND = /^\/goal(?:\s+([\s\S]*))?$/;

/**
 * The `/goal` command `text` holds, or undefined when it is an ordinary prompt. A lone keyword
 * (`resume` with an optional round cap) is a subcommand; any other text is an objective, so
 * `/goal clear the lint warnings` starts a goal.
 */
export function parseGoalCommand(text: string): GoalCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const rest = (match[1] ?? '').trim();
  if (rest === '') return { kind: 'usage' };
  if (rest === 'pause' || rest === 'clear' || rest === 'show') return { kind: rest };
  const resume = /^resume(?:\s+(\d+))?$/.exec(rest);
  if (resume)
    return resume[1] === undefined
      ? { kind: 'resume' }
      : { kind: 'resume', maxRounds: Number(resume[1]) };
  return { kind: 'create', objective: rest };
}

/** Changes and rounds `/goal show` lists at most (the latest ones). */
const HISTORY_SHOWN = 20;

function historyLine(entry: GoalHistoryEntry): string {
  if (entry.kind === 'round') return `  round ${entry.round}`;
  const reason = entry.reason ? `: ${entry.reason}` : '';
  return `  ${entry.action} by ${entry.by} (revision ${entry.revision}, ${entry.phase})${reason}`;
}

export function goalShown(
  goal: Goal | null,
  activation: GoalActivation,
  history: readonly GoalHistoryEntry[],
): string {
  if (goal === null) return 'This session has no goal. Start one with /goal OBJECTIVE.';
  const lines = [
    `Goal ${goal.id} (revision ${goal.revision}): ${goal.objective}`,
    `Phase: ${goal.phase}${goal.reason ? ` (${goal.reason})` : ''}; ${activation} in this process.`,
    `Rounds: ${goal.roundsStarted} of ${goal.maxRounds}.`,
  ];
  if (history.length > 0) {
    lines.push('History:');
    const hidden = history.length - HISTORY_SHOWN;
    if (hidden > 0) lines.push(`  … ${hidden} earlier`);
    for (const entry of history.slice(Math.max(0, hidden))) lines.push(historyLine(entry));
  }
  return lines.join('\n');
}

const rounds = (goal: Goal) => `${goal.roundsStarted} round${goal.roundsStarted === 1 ? '' : 's'}`;

/** What the client is told when rounds stop. */
export function settlementText(settlement: GoalSettlement): string {
  switch (settlement.kind) {
    case 'complete':
    case 'blocked': {
      const { goal } = settlement;
      return `Goal ${goal.id} is ${settlement.kind} after ${rounds(goal)}${goal.reason ? `: ${goal.reason}` : '.'}`;
    }
    case 'paused':
      return `Goal ${settlement.goal.id} is paused after ${rounds(settlement.goal)}; /goal resume continues it.`;
    case 'cleared':
      return 'The goal was cleared.';
    case 'round-cap': {
      const { goal } = settlement;
      return `Goal ${goal.id} reached its cap of ${goal.maxRounds} rounds and is still active; /goal resume MAX_ROUNDS continues it with a larger cap.`;
    }
    case 'disarmed':
      return settlement.goal
        ? `Goal ${settlement.goal.id} stopped running after ${rounds(settlement.goal)}; /goal resume continues it.`
        : 'The goal stopped running.';
    case 'error':
      return `${settlement.goal ? `Goal ${settlement.goal.id} stopped` : 'The goal stopped'}: ${settlement.message}. /goal resume tries again.`;
  }
}
