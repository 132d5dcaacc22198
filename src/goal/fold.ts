/**
 * Folds a session's events into its goal: `goal/change` events and goal-sourced user messages,
 * plus what authority checks need (which turn holds human input, which is the current round, the
 * blocks rounds reported). Strict: a change must continue the current goal's revisions and a
 * round must be the next one of the active goal, else `GOAL_REPLAY` naming the event's seq. Any
 * prefix of a valid log folds without error; folding never arms anything.
 */
import type { SessionEvent } from '../core/session-events.js';
import {
  GOAL_SOURCE,
  type Goal,
  type GoalAction,
  type GoalActor,
  GoalError,
  type GoalPhase,
} from './contract.js';

export const UPDATE_GOAL_TOOL = 'update_goal';

export type GoalHistoryEntry =
  | {
      kind: 'change';
      seq: number;
      time: number;
      action: GoalAction;
      by: GoalActor;
      phase: GoalPhase;
      revision: number;
      objective?: string;
      reason?: string;
    }
  | { kind: 'round'; seq: number; time: number; round: number; turnId: string };

/** A block a goal round reported through `update_goal`, and how many rounds in a row did. */
interface BlockReport {
  reason: string;
  round: number;
  streak: number;
}

export class GoalFold {
  private current: Goal | null = null;
  private entries: GoalHistoryEntry[] = [];
  private roundTurn: { turnId: string; round: number } | undefined;
  private humanTurn: string | undefined;
  private block: BlockReport | undefined;
  private report = '';
  private created = 0;

  /** The goal as of the last event folded; `null` when there is none (or it was cleared). */
  get goal(): Goal | null {
    return this.current === null ? null : { ...this.current };
  }

  /** The changes and rounds of the current goal (or the last one, once cleared), oldest first. */
  get history(): readonly GoalHistoryEntry[] {
    return this.entries;
  }

  /** Goals this session has created so far (ids are `goal-N` in creation order). */
  get goalsCreated(): number {
    return this.created;
  }

  /** The last text the latest round's turn produced: what the previous round reported. */
  get lastRoundReport(): string {
    return this.report;
  }

  /** Whether the turn holds a message the human wrote (not a round, job or child). */
  hasHumanInput(turnId: string): boolean {
    return this.humanTurn === turnId;
  }

  /** The round `turnId` runs for the current goal, if it is that goal's latest round. */
  roundOf(turnId: string): number | undefined {
    if (this.current === null || this.roundTurn?.turnId !== turnId) return undefined;
    return this.roundTurn.round;
  }

  /**
   * How many consecutive rounds, ending with the latest one, reported `reason` as a block.
   * Reasons compare without case and runs of white space.
   */
  blockStreak(reason: string): number {
    const block = this.block;
    if (block === undefined || this.roundTurn === undefined) return 0;
    if (block.round !== this.roundTurn.round || block.reason !== sameReason(reason)) return 0;
    return block.streak;
  }

  /** Folds one event; throws `GOAL_REPLAY` (and changes nothing) when it cannot follow. */
  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'goal/change':
        this.applyChange(event as SessionEvent<'goal/change'>);
        return;
      case 'user/message':
        this.applyMessage(event as SessionEvent<'user/message'>);
        return;
      case 'tool/call':
        this.applyToolCall(event as SessionEvent<'tool/call'>);
        return;
      case 'assistant/message': {
        const { data } = event as SessionEvent<'assistant/message'>;
        if (data.text && this.roundTurn?.turnId === data.turnId) this.report = data.text;
        return;
      }
      default:
        return;
    }
  }

  private applyChange(event: SessionEvent<'goal/change'>): void {
    const change = event.data;
    const goal = this.current;
    if (change.action === 'create') {
      if (goal !== null && goal.phase !== 'complete') {
        fail(event, `creates goal ${change.goalId} while goal ${goal.id} is ${goal.phase}`);
      }
      if (change.revision !== 1 || typeof change.objective !== 'string') {
        fail(event, 'creates a goal without revision 1 and an objective');
      }
      if (!isRoundCount(change.maxRounds)) fail(event, 'creates a goal without its round cap');
      this.current = {
        id: change.goalId,
        objective: change.objective as string,
        phase: change.phase,
        revision: 1,
        roundsStarted: 0,
        maxRounds: change.maxRounds as number,
      };
      this.created += 1;
      this.entries = [];
      this.roundTurn = undefined;
      this.block = undefined;
      this.report = '';
    } else {
      if (goal === null) fail(event, `changes goal ${change.goalId}, but there is none`);
      const open = goal as Goal;
      if (open.id !== change.goalId) {
        fail(event, `changes goal ${change.goalId}, but the current goal is ${open.id}`);
      }
      if (change.revision !== open.revision + 1) {
        fail(event, `gives revision ${change.revision} after revision ${open.revision}`);
      }
      const next: Goal = { ...open, phase: change.phase, revision: change.revision };
      if (change.objective !== undefined) next.objective = change.objective;
      if (isRoundCount(change.maxRounds)) next.maxRounds = change.maxRounds;
      if (change.reason !== undefined) next.reason = change.reason;
      else delete next.reason;
      if (change.action === 'resume' || change.action === 'edit') this.block = undefined;
      this.current = change.action === 'clear' ? null : next;
    }
    const entry: GoalHistoryEntry = {
      kind: 'change',
      seq: event.seq,
      time: event.time,
      action: change.action,
      by: change.by,
      phase: change.phase,
      revision: change.revision,
    };
    if (change.objective !== undefined) entry.objective = change.objective;
    if (change.reason !== undefined) entry.reason = change.reason;
    this.entries.push(entry);
  }

  private applyMessage(event: SessionEvent<'user/message'>): void {
    const { data } = event;
    if (data.source === undefined) {
      this.humanTurn = data.turnId;
      return;
    }
    if (data.source !== GOAL_SOURCE) return;
    const goal = this.current;
    if (goal === null || goal.phase !== 'active') {
      fail(event, `is goal round ${data.round}, but no goal is active`);
    }
    const active = goal as Goal;
    if (data.round !== active.roundsStarted + 1) {
      fail(event, `is goal round ${data.round}, but the next round is ${active.roundsStarted + 1}`);
    }
    this.current = { ...active, roundsStarted: active.roundsStarted + 1 };
    this.roundTurn = { turnId: data.turnId, round: active.roundsStarted + 1 };
    // What the previous round reported is only ever that round's own text, never an older one.
    this.report = '';
    this.entries.push({
      kind: 'round',
      seq: event.seq,
      time: event.time,
      round: active.roundsStarted + 1,
      turnId: data.turnId,
    });
  }

  private applyToolCall(event: SessionEvent<'tool/call'>): void {
    const { data } = event;
    if (data.name !== UPDATE_GOAL_TOOL || this.roundTurn?.turnId !== data.turnId) return;
    const { action, reason } = (data.arguments ?? {}) as { action?: unknown; reason?: unknown };
    if (action !== 'blocked' || typeof reason !== 'string') return;
    const round = this.roundTurn.round;
    const said = sameReason(reason);
    const previous = this.block;
    if (previous?.round === round) {
      if (previous.reason !== said) this.block = { reason: said, round, streak: 1 };
      return;
    }
    const continues = previous?.round === round - 1 && previous.reason === said;
    this.block = {
      reason: said,
      round,
      streak: continues ? (previous as BlockReport).streak + 1 : 1,
    };
  }
}

/** Folds a whole log; throws `GOAL_REPLAY` at the first event that cannot follow. */
export function foldGoal(events: readonly SessionEvent[]): GoalFold {
  const fold = new GoalFold();
  for (const event of events) fold.apply(event);
  return fold;
}

function fail(event: SessionEvent, problem: string): never {
  throw new GoalError('GOAL_REPLAY', `session event ${event.seq} (${event.type}) ${problem}`);
}

function isRoundCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function sameReason(reason: string): string {
  return reason.trim().replace(/\s+/g, ' ').toLowerCase();
}
