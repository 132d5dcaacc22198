/**
 * The goal of one session: the fold of its log plus this process's activation. Changes are
 * checked (revision, phase) and then appended as `goal/change`; the fold updates from the log
 * itself, so what the service reports is always what a replay would give. Authority (who may
 * ask for a change) is the caller's: the tools check it, commands act for the human. A log that
 * cannot be folded leaves the service refusing every change with that replay error.
 */

import { UserError } from '../base/errors.js';
import { type Disposer, serviceKey } from '../core/context.js';
import type { SessionLog } from '../core/session-log.js';
import {
  DEFAULT_GOAL_SETTINGS,
  type Goal,
  type GoalAction,
  type GoalActivation,
  type GoalActor,
  type GoalChangeEvent,
  GoalError,
  type GoalPhase,
  type GoalRef,
  type GoalSettings,
} from './contract.js';
import { GoalFold, type GoalHistoryEntry } from './fold.js';

export const goalServiceKey = serviceKey<GoalService>('goal/service');

export interface GoalServiceOptions {
  log: SessionLog;
  settings?: Partial<GoalSettings>;
}

export interface GoalUpdate {
  action: Exclude<GoalAction, 'create'>;
  objective?: string;
  reason?: string;
  /** A new round cap (`edit`, `resume`). */
  maxRounds?: number;
}

/** Phases each action may start from. */
const ALLOWED_FROM: Record<GoalUpdate['action'], readonly GoalPhase[]> = {
  edit: ['active', 'paused', 'blocked'],
  pause: ['active'],
  resume: ['active', 'paused', 'blocked'],
  complete: ['active', 'paused', 'blocked'],
  blocked: ['active'],
  clear: ['active', 'paused', 'blocked', 'complete'],
};

const PHASE_AFTER: Record<GoalUpdate['action'], GoalPhase | undefined> = {
  edit: undefined,
  pause: 'paused',
  resume: 'active',
  complete: 'complete',
  blocked: 'blocked',
  clear: undefined,
};

export const MAX_ROUND_CAP = 10_000;

export class GoalService {
  readonly settings: GoalSettings;
  private readonly log: SessionLog;
  private readonly fold = new GoalFold();
  private replayError: GoalError | undefined;
  private armed = false;
  private readonly listeners = new Set<(change: GoalChangeEvent) => void>();
  private readonly stopFolding: Disposer;

  constructor(options: GoalServiceOptions) {
    this.log = options.log;
    this.settings = { ...DEFAULT_GOAL_SETTINGS, ...options.settings };
    try {
      for (const event of options.log.events) this.fold.apply(event);
    } catch (error) {
      this.replayError = error as GoalError;
    }
    this.stopFolding = options.log.onAppend((event) => {
      if (this.replayError) return;
      try {
        this.fold.apply(event);
      } catch (error) {
        this.replayError = error as GoalError;
        this.armed = false;
        return;
      }
      if (event.type !== 'goal/change') return;
      if (this.fold.goal?.phase !== 'active') this.armed = false;
      const change = event.data as GoalChangeEvent;
      for (const listener of [...this.listeners]) listener(change);
    });
  }

  /** The goal as folded from the log; `null` when there is none. Throws a replay error. */
  get goal(): Goal | null {
    this.checkReplay();
    return this.fold.goal;
  }

  get activation(): GoalActivation {
    return this.armed ? 'armed' : 'disarmed';
  }

  get history(): readonly GoalHistoryEntry[] {
    return this.fold.history;
  }

  get lastRoundReport(): string {
    return this.fold.lastRoundReport;
  }

  /** Why this session's goal cannot be folded, if it cannot. */
  get problem(): GoalError | undefined {
    return this.replayError;
  }

  hasHumanInput(turnId: string): boolean {
    return this.fold.hasHumanInput(turnId);
  }

  roundOf(turnId: string): number | undefined {
    return this.fold.roundOf(turnId);
  }

  blockStreak(reason: string): number {
    return this.fold.blockStreak(reason);
  }

  /** Runs `listener` after each change is folded. Must not throw. */
  onChange(listener: (change: GoalChangeEvent) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Lets this process drive rounds; the goal must be active. */
  arm(): Goal {
    const goal = this.goal;
    if (goal === null) throw new GoalError('GOAL_NOT_FOUND', 'this session has no goal to arm');
    if (goal.phase !== 'active') {
      throw new GoalError('GOAL_PHASE', `goal ${goal.id} is ${goal.phase}, not active`);
    }
    this.armed = true;
    return goal;
  }

  disarm(): void {
    this.armed = false;
  }

  /** Creates the session's goal (`GOAL_EXISTS` while another is not complete). Not armed. */
  create(options: { objective: string; maxRounds?: number; by: GoalActor }): Goal {
    const current = this.goal;
    if (current !== null && current.phase !== 'complete') {
      throw new GoalError(
        'GOAL_EXISTS',
        `goal ${current.id} is ${current.phase}; complete or clear it before creating another`,
      );
    }
    const objective = checkedObjective(options.objective);
    const maxRounds = checkedRoundCap(options.maxRounds ?? this.settings.maxRounds);
    this.append({
      goalId: `goal-${this.fold.goalsCreated + 1}`,
      revision: 1,
      action: 'create',
      phase: 'active',
      objective,
      maxRounds,
      by: options.by,
    });
    return this.goal as Goal;
  }

  /**
   * Applies `update` to the goal `ref` names, at the revision it read. `resume` of a goal that
   * is already active changes nothing (the caller arms it). Returns the goal after, `null` once
   * cleared.
   */
  update(ref: GoalRef, update: GoalUpdate, by: GoalActor): Goal | null {
    const goal = this.current(ref);
    const { action } = update;
    if (!ALLOWED_FROM[action].includes(goal.phase)) {
      throw new GoalError(
        'GOAL_PHASE',
        `goal ${goal.id} is ${goal.phase}; ${action} needs a goal that is ${ALLOWED_FROM[action].join(' or ')}`,
      );
    }
    const change: GoalChangeEvent = {
      goalId: goal.id,
      revision: goal.revision + 1,
      action,
      phase: PHASE_AFTER[action] ?? goal.phase,
      by,
    };
    if (update.objective !== undefined) change.objective = checkedObjective(update.objective);
    if (update.maxRounds !== undefined) change.maxRounds = checkedRoundCap(update.maxRounds);
    if (action === 'edit' && change.objective === undefined && change.maxRounds === undefined) {
      throw new UserError('INVALID_ARGUMENT', 'edit needs a new objective or round cap');
    }
    if (action === 'resume' && goal.phase === 'active' && change.maxRounds === undefined) {
      return goal;
    }
    if (update.reason !== undefined && update.reason.trim() !== '') {
      change.reason = update.reason.trim();
    } else if (action === 'blocked' || action === 'complete') {
      throw new UserError(
        'INVALID_ARGUMENT',
        `${action} needs a reason: the evidence, or what blocks it`,
      );
    }
    this.append(change);
    return this.fold.goal;
  }

  /** Stops following the log; the service keeps its last state. */
  dispose(): void {
    this.stopFolding();
    this.listeners.clear();
    this.armed = false;
  }

  private current(ref: GoalRef): Goal {
    const goal = this.goal;
    if (goal === null || goal.id !== ref.goalId) {
      const which = goal === null ? 'this session has no goal' : `the goal is ${goal.id}`;
      throw new GoalError('GOAL_NOT_FOUND', `no goal ${ref.goalId}: ${which}`);
    }
    if (goal.revision !== ref.revision) {
      throw new GoalError(
        'GOAL_STALE_REVISION',
        `goal ${goal.id} is at revision ${goal.revision}, not ${ref.revision}; read it again (get_goal) and retry`,
      );
    }
    return goal;
  }

  private append(change: GoalChangeEvent): void {
    this.log.append('goal/change', change);
  }

  private checkReplay(): void {
    if (this.replayError) throw this.replayError;
  }
}

/**
 * The objective on one line (runs of white space, line breaks included, become one space): a
 * round prompt's first line is exactly `[goal round N of M] OBJECTIVE`.
 */
function checkedObjective(objective: string): string {
  const text = typeof objective === 'string' ? objective.trim().replace(/\s+/g, ' ') : '';
  if (text === '') throw new UserError('INVALID_ARGUMENT', 'a goal needs a non-empty objective');
  return text;
}

function checkedRoundCap(maxRounds: number): number {
  if (!Number.isInteger(maxRounds) || maxRounds < 1 || maxRounds > MAX_ROUND_CAP) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `max rounds must be a whole number from 1 to ${MAX_ROUND_CAP}, got ${String(maxRounds)}`,
    );
  }
  return maxRounds;
}
