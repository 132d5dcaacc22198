/**
 * The plan-mode seam (layer 5): while a root session is in plan mode its agent explores
 * read-only and ends by presenting a plan with `exit_plan_mode` for the user to review. The
 * mode lives only in the session log (`plan/mode`, last one wins), never in the model's
 * transcript; approved plans are logged as `plan/approved`. Nothing here talks to a UI.
 */

import { LoomError } from '../base/errors.js';
import { serviceKey } from '../core/context.js';

export type PlanMode = 'plan' | 'default';

export const PLAN_MODES: readonly PlanMode[] = ['default', 'plan'];

/** Who switched the mode: the user (a flag, an editor), or the user's approval of a plan. */
export type PlanModeActor = 'user' | 'approval';

export interface PlanModeEvent {
  mode: PlanMode;
  by: PlanModeActor;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    'plan/mode': PlanModeEvent;
    /** The user approved this plan; plan mode ended with it. */
    'plan/approved': { plan: string };
    /** Nobody could review the plan here (headless `loom run`): it was shown and the turn ended. */
    'plan/presented': { plan: string };
  }
}

export type PlanErrorCode = 'PLAN_MODE_OFF' | 'PLAN_NO_REVIEWER';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<PlanErrorCode, true> {}
}

export class PlanError extends LoomError<PlanErrorCode> {}

export interface PlanSettings {
  /**
   * Deny mutating tools while in plan mode (default true); false keeps plan mode prompt-only.
   */
  enforce: boolean;
}

export const DEFAULT_PLAN_SETTINGS: PlanSettings = { enforce: true };

/** What became of a presented plan. */
export type PlanVerdict =
  | { kind: 'approved' }
  | { kind: 'rejected'; feedback: string }
  /** Shown to the user with nobody to answer now: the turn ends and plan mode stays. */
  | { kind: 'presented' };

/**
 * Reviews a root agent's plan. A command that decides plan reviews itself (`loom run
 * --approve-plan`, or a headless run that ends on the plan) provides one on the runtime's root
 * scope; without one, `exit_plan_mode` asks the user-questions service.
 */
export interface PlanReviewer {
  review(plan: string, options: { sessionId: string; signal: AbortSignal }): Promise<PlanVerdict>;
}

export const planReviewerKey = serviceKey<PlanReviewer>('plan/reviewer');
