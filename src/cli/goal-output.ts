/**
 * What the command line says about a goal it drives: a stderr line as each round starts and as
 * the goal changes, and the settlement (why the rounds stopped) with its exit code (SPEC §5:
 * 0 complete; 1 blocked, round cap, error or any other stop). Reads events and settlements only;
 * it never changes a goal.
 */

import { LoomError } from '../base/errors.js';
import type { SessionEvent } from '../core/session-events.js';
import type { Goal, GoalChangeEvent, GoalSettlement } from '../goal/contract.js';
import { GOAL_SOURCE } from '../goal/contract.js';

/** The first line of a round prompt: `[goal round N of M] OBJECTIVE`. */
const ROUND_LINE = /^\[goal round (\d+) of (\d+)\]/;

function dimmer(stream: NodeJS.WritableStream): (text: string) => string {
  const enabled = 'isTTY' in stream && stream.isTTY === true && !process.env.NO_COLOR;
  return (text) => (enabled ? `\u001b[2m${text}\u001b[22m` : text);
}

/** `goal round 2 of 20` and `goal goal-1 pause by human → paused`, for the plain output. */
export function goalProgressLine(event: SessionEvent): string | undefined {
  if (event.type === 'user/message') {
    const data = event.data as SessionEvent<'user/message'>['data'];
    if (data.source !== GOAL_SOURCE) return undefined;
    const match = ROUND_LINE.exec(data.text);
    return match ? `goal round ${match[1]} of ${match[2]}` : `goal round ${data.round}`;
  }
  if (event.type === 'goal/change') return describeGoalChange(event.data as GoalChangeEvent);
  return undefined;
}

export function describeGoalChange(change: GoalChangeEvent): string {
  const reason = change.reason ? `: ${change.reason}` : '';
  const phase = change.action === 'clear' ? 'cleared' : change.phase;
  const objective = change.objective !== undefined ? `, objective: ${change.objective}` : '';
  const cap = change.maxRounds !== undefined ? `, at most ${change.maxRounds} rounds` : '';
  return `goal ${change.goalId} ${change.action} by ${change.by} → ${phase} (revision ${change.revision}${cap})${objective}${reason}`;
}

/** Writes goal progress lines to `stderr` (dimmed on a terminal). */
export function goalProgressWriter(stderr: NodeJS.WritableStream): (event: SessionEvent) => void {
  const dim = dimmer(stderr);
  return (event) => {
    const line = goalProgressLine(event);
    if (line !== undefined) stderr.write(`${dim(line)}\n`);
  };
}

/**
 * A settlement as the user should read it: a `disarmed` stop of an active goal that has used all
 * its rounds is the round cap (the cap disarms before a later look reports it).
 */
export function normalizeSettlement(settlement: GoalSettlement): GoalSettlement {
  if (settlement.kind !== 'disarmed' || settlement.goal === null) return settlement;
  const goal = settlement.goal;
  if (goal.phase === 'active' && goal.roundsStarted >= goal.maxRounds) {
    return { kind: 'round-cap', goal };
  }
  return settlement;
}

const rounds = (goal: Goal) =>
  `${goal.roundsStarted} ${goal.roundsStarted === 1 ? 'round' : 'rounds'}`;

/** The closing message of a goal run (for stderr) and its exit code. */
export function settlementReport(
  settlement: GoalSettlement,
  sessionId: string,
): { code: number; message: string } {
  const resume = `loom goal resume --session ${sessionId}`;
  switch (settlement.kind) {
    case 'complete': {
      const { goal } = settlement;
      const reason = goal.reason ? `: ${goal.reason}` : '';
      return { code: 0, message: `goal ${goal.id} complete after ${rounds(goal)}${reason}` };
    }
    case 'blocked': {
      const { goal } = settlement;
      return {
        code: 1,
        message: `error: goal ${goal.id} is blocked after ${rounds(goal)}: ${goal.reason ?? 'no reason given'}; once it is unblocked: ${resume}`,
      };
    }
    case 'round-cap': {
      const { goal } = settlement;
      return {
        code: 1,
        message: `error: goal ${goal.id} started all ${goal.maxRounds} of its rounds without completing (GOAL_ROUND_CAP); to go on, give it a larger total cap: ${resume} --max-rounds N (N above ${goal.maxRounds})`,
      };
    }
    case 'paused': {
      const { goal } = settlement;
      const reason = goal.reason ? ` (${goal.reason})` : '';
      return {
        code: 1,
        message: `goal ${goal.id} is paused after ${rounds(goal)}${reason}; to go on: ${resume}`,
      };
    }
    case 'cleared':
      return { code: 1, message: 'the goal was cleared before it completed' };
    case 'disarmed': {
      const which = settlement.goal ? `goal ${settlement.goal.id}` : 'the goal';
      return {
        code: 1,
        message: `error: ${which} stopped before it settled (its round did not finish); to go on: ${resume}`,
      };
    }
    case 'error':
      return { code: 1, message: `error: ${settlement.message}; to try again: ${resume}` };
  }
}

/** `error` with its code named in its message (once), so `loom: …` tells the user which it is. */
export function withErrorCode(error: unknown): unknown {
  if (error instanceof LoomError && !error.message.includes(error.code)) {
    error.message = `${error.message} (${error.code})`;
  }
  return error;
}
