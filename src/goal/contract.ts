/**
 * The goal seam (layer 4): one persistent objective per session that the agent pursues round
 * after round. The durable facts (phase, revision, rounds) live only in the session log as
 * `goal/change` events and goal-sourced user messages; whether this process drives rounds
 * (`armed`) is local and never written. Every change names the revision it read.
 */
import { LoomError } from '../base/errors.js';

/** Durable: folded from the log. */
export type GoalPhase = 'active' | 'paused' | 'blocked' | 'complete';
/** Local to one process: opening a session always starts `disarmed`. */
export type GoalActivation = 'armed' | 'disarmed';
export type GoalAction = 'create' | 'edit' | 'pause' | 'resume' | 'complete' | 'blocked' | 'clear';
/** Who made a change: a person, the model on a person's word, or the model in a goal round. */
export type GoalActor = 'human' | 'model' | 'round';

/** The `source` of a round's `user/message`. */
export const GOAL_SOURCE = 'goal';

export interface Goal {
  id: string;
  objective: string;
  phase: GoalPhase;
  /** 1 at creation, one more for every change. */
  revision: number;
  roundsStarted: number;
  maxRounds: number;
  /** Why it is paused, blocked or complete, as the last change said. */
  reason?: string;
}

/** What a change must name: the goal and the revision its author read. */
export interface GoalRef {
  goalId: string;
  revision: number;
}

export interface GoalChangeEvent {
  goalId: string;
  /** The revision after the change. */
  revision: number;
  action: GoalAction;
  /** The phase after the change (for `clear`, the phase the goal had). */
  phase: GoalPhase;
  objective?: string;
  reason?: string;
  /** Set by `create`, and by `edit`/`resume` when they change the cap. */
  maxRounds?: number;
  by: GoalActor;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'goal/change': GoalChangeEvent;
  }
}

export type GoalErrorCode =
  | 'GOAL_STALE_REVISION'
  | 'GOAL_EXISTS'
  | 'GOAL_NOT_FOUND'
  | 'GOAL_AUTHORITY'
  | 'GOAL_BLOCK_EARLY'
  | 'GOAL_ROUND_CAP'
  | 'GOAL_PHASE'
  | 'GOAL_REPLAY';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<GoalErrorCode, true> {}
}

export class GoalError extends LoomError<GoalErrorCode> {}

export interface GoalSettings {
  /** Rounds a goal may start; default 20 (`goal.maxRounds`, `--max-rounds`). */
  maxRounds: number;
  /** Consecutive rounds that must report the same block before `blocked` is accepted; default 3. */
  blockedAfterConsecutiveRounds: number;
}

export const DEFAULT_GOAL_SETTINGS: GoalSettings = {
  maxRounds: 20,
  blockedAfterConsecutiveRounds: 3,
};

/** Why the round driver stopped driving. */
export type GoalSettlement =
  | { kind: 'complete'; goal: Goal }
  | { kind: 'blocked'; goal: Goal }
  | { kind: 'paused'; goal: Goal }
  | { kind: 'cleared' }
  | { kind: 'disarmed'; goal: Goal | null }
  | { kind: 'round-cap'; goal: Goal }
  | { kind: 'error'; goal: Goal | null; message: string };
