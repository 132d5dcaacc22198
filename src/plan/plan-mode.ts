/**
 * The plan mode of one root session, folded from its log: the last `plan/mode` event wins, so a
 * reopened session is in the mode it was left in. The fold also keeps the latest plan the user
 * approved, until plan mode starts again (a new planning round supersedes it). Switching appends
 * `plan/mode` and the state follows from the log itself. It never decides what a tool may do
 * (see plan-guard.ts).
 */
import { type Disposer, serviceKey } from '../core/context.js';
import { isEvent, type SessionEvent } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { PlanMode, PlanModeActor, PlanSettings } from './contract.js';

export const planModeKey = serviceKey<PlanModeService>('plan/mode');

export interface PlanState {
  mode: PlanMode;
  /** The text of the latest `plan/approved`, verbatim; cleared when plan mode starts again. */
  approvedPlan?: string;
}

/** The state a log leaves its session in. */
export function foldPlanState(events: readonly SessionEvent[]): PlanState {
  let state: PlanState = { mode: 'default' };
  for (const event of events) state = stateAfter(state, event);
  return state;
}

/** The mode a log leaves its session in. */
export function foldPlanMode(events: readonly SessionEvent[]): PlanMode {
  return foldPlanState(events).mode;
}

function stateAfter(state: PlanState, event: SessionEvent): PlanState {
  if (isEvent(event, 'plan/approved')) {
    const { plan } = event.data;
    return typeof plan === 'string' ? { ...state, approvedPlan: plan } : state;
  }
  if (!isEvent(event, 'plan/mode')) return state;
  const next = event.data.mode;
  if (next === 'default') return { ...state, mode: next };
  return next === 'plan' ? { mode: next } : state;
}

export class PlanModeService {
  private state: PlanState;
  private readonly listeners = new Set<(mode: PlanMode, by: PlanModeActor) => void>();
  private readonly stopFolding: Disposer;

  constructor(
    readonly log: SessionLog,
    readonly settings: PlanSettings,
  ) {
    this.state = foldPlanState(log.events);
    this.stopFolding = log.onAppend((event) => {
      const before = this.state.mode;
      this.state = stateAfter(this.state, event);
      if (this.state.mode === before) return;
      const { by } = (event as SessionEvent<'plan/mode'>).data;
      for (const listener of [...this.listeners]) listener(this.state.mode, by);
    });
  }

  get mode(): PlanMode {
    return this.state.mode;
  }

  /** The latest plan the user approved, verbatim, unless plan mode started again since. */
  get approvedPlan(): string | undefined {
    return this.state.approvedPlan;
  }

  /** Whether mutating tools are denied now. */
  get enforced(): boolean {
    return this.state.mode === 'plan' && this.settings.enforce;
  }

  /** Logs `plan/mode` unless the session is already in `mode`. */
  setMode(mode: PlanMode, by: PlanModeActor = 'user'): void {
    if (mode === this.state.mode) return;
    this.log.append('plan/mode', { mode, by });
  }

  /** Called after each change of mode, with who made it. */
  onChange(listener: (mode: PlanMode, by: PlanModeActor) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.stopFolding();
    this.listeners.clear();
  }
}
