/**
 * A runtime with the schedules layer over a scripted model and a fake clock, for schedule tests:
 * time moves only when a test calls `advance`, which runs the timers that fell due. Tests wait
 * on the agent going idle or on logged events, never on real time.
 */
import type { AgentRuntime } from '../../src/core/runtime.js';
import { isEvent, type SessionEvent } from '../../src/core/session-events.js';
import type { ScheduleClock } from '../../src/interaction/schedule-contract.js';
import { installSchedules } from '../../src/interaction/schedule-install.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface FakeClock extends ScheduleClock {
  /** Timers not yet run or cancelled. */
  readonly pending: number;
  /** Moves time on by `milliseconds`, running every timer due by then, in time order. */
  advance(milliseconds: number): void;
}

export function fakeClock(start = Date.parse('2026-12-01T09:00:00Z')): FakeClock {
  let now = start;
  let next = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    get pending() {
      return timers.size;
    },
    setTimer(callback, milliseconds) {
      const id = next++;
      timers.set(id, { at: now + milliseconds, callback });
      return () => timers.delete(id);
    },
    advance(milliseconds) {
      const end = now + milliseconds;
      while (true) {
        const due = [...timers.entries()]
          .filter(([, timer]) => timer.at <= end)
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].callback();
      }
      now = end;
    },
  };
}

export function scheduleRuntime(
  script: ScriptedModelFile,
  clock: FakeClock,
  home = temporaryFolder('loom-schedule-'),
): { runtime: AgentRuntime; home: string } {
  const model = createScriptedModel(script);
  const runtime = runtimeOver(model, home);
  installSchedules(runtime, { clock });
  return { runtime, home };
}

/** The user messages a schedule sent, as `delivery: text`. */
export function scheduleMessages(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) =>
    isEvent(event, 'user/message') && event.data.source === 'schedule'
      ? [`${event.data.delivery}: ${event.data.text}`]
      : [],
  );
}

export function fireEvents(events: readonly SessionEvent[]) {
  return events.flatMap((event) => (isEvent(event, 'schedule/fire') ? [event.data] : []));
}
