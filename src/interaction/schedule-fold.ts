/**
 * Folds a session's schedule events into its pending schedules: `schedule/create` adds one,
 * `schedule/delete` removes it, `schedule/fire` re-arms a recurring one or ends a one-shot. An
 * event about an unknown schedule is ignored (its schedule is already gone), so any prefix of a
 * log folds without error. Pure: it never touches a timer or the log.
 */
import { isEvent, type SessionEvent } from '../core/session-events.js';
import type { Schedule } from './schedule-contract.js';

export class ScheduleFold {
  private readonly pending = new Map<string, Schedule>();
  private created = 0;

  /** Pending schedules, soonest first (ties by creation order). */
  get schedules(): Schedule[] {
    return [...this.pending.values()]
      .map((schedule) => ({ ...schedule }))
      .sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Schedules this session has created so far (ids are `schedule-N` in creation order). */
  get schedulesCreated(): number {
    return this.created;
  }

  find(id: string): Schedule | undefined {
    const schedule = this.pending.get(id);
    return schedule ? { ...schedule } : undefined;
  }

  apply(event: SessionEvent): void {
    if (isEvent(event, 'schedule/create')) {
      const { data } = event;
      const schedule: Schedule = {
        id: data.scheduleId,
        prompt: data.prompt,
        kind: data.kind,
        dueAt: data.dueAt,
        createdAt: event.time,
      };
      if (data.everySeconds !== undefined) schedule.everySeconds = data.everySeconds;
      this.pending.set(data.scheduleId, schedule);
      this.created += 1;
    } else if (isEvent(event, 'schedule/delete')) {
      this.pending.delete(event.data.scheduleId);
    } else if (isEvent(event, 'schedule/fire')) {
      const { data } = event;
      const schedule = this.pending.get(data.scheduleId);
      if (!schedule) return;
      if (data.nextDueAt === undefined) this.pending.delete(data.scheduleId);
      else this.pending.set(data.scheduleId, { ...schedule, dueAt: data.nextDueAt });
    }
  }
}

export function foldSchedules(events: readonly SessionEvent[]): ScheduleFold {
  const fold = new ScheduleFold();
  for (const event of events) fold.apply(event);
  return fold;
}
