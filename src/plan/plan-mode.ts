/**
 * The plan mode of one root session, folded from its log: the last `plan/mode` event wins, so a
 * reopened session is in the mode it was left in. Switching appends `plan/mode` and the state
 * follows from the log itself. It never decides what a tool may do (see plan-guard.ts).
 */
import { type Disposer, serviceKey } from '../core/context.js';
import type { SessionEvent } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { PlanMode, PlanModeActor, PlanSettings } from './contract.js';

export const planModeKey = serviceKey<PlanModeService>('plan/mode');

/** The mode a log leaves its session in. */
export function foldPlanMode(events: readonly SessionEvent[]): PlanMode {
  let mode: PlanMode = 'default';
  for (const event of events) mode = modeAfter(mode, event);
  return mode;
}

function modeAfter(mode: PlanMode, event: SessionEvent): PlanMode {
  if (event.type !== 'plan/mode') return mode;
  const next = (event as SessionEvent<'plan/mode'>).data.mode;
  return next === 'plan' || next === 'default' ? next : mode;
}

export class PlanModeService {
  private current: PlanMode;
  private readonly listeners = new Set<(mode: PlanMode, by: PlanModeActor) => void>();
  private readonly stopFolding: Disposer;

  constructor(
    readonly log: SessionLog,
    readonly settings: PlanSettings,
  ) {
    this.current = foldPlanMode(log.events);
    this.stopFolding = log.onAppend((event) => {
      const next = modeAfter(this.current, event);
      if (next === this.current) return;
      this.current = next;
      const { by } = (event as SessionEvent<'plan/mode'>).data;
      for (const listener of [...this.listeners]) listener(next, by);
    });
  }

  get mode(): PlanMode {
    return this.current;
  }

  /** Whether mutating tools are denied now. */
  get enforced(): boolean {
    return this.current === 'plan' && this.settings.enforce;
  }

  /** Logs `plan/mode` unless the session is already in `mode`. */
  setMode(mode: PlanMode, by: PlanModeActor = 'user'): void {
    if (mode === this.current) return;
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
