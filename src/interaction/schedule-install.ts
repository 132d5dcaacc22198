/**
 * Installs schedules into a runtime: every root agent (delegation depth 0) gets a schedule
 * service folded from its session, the schedule tools, and its pending schedules restated after
 * a compaction (`agent/standing-state`). Children never do: they live for one task and end with
 * it, so a reminder set by one would have nobody to wake. A schedule fires only while its agent
 * is open in this process; closing the agent stops its timer.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addStandingState } from '../core/standing-state.js';
import { SCHEDULE_SOURCE, type ScheduleClock } from './schedule-contract.js';
import { processClock, ScheduleService, scheduleServiceKey } from './schedule-service.js';
import { pendingLine, schedulesStandingText } from './schedule-text.js';
import { scheduleTools } from './schedule-tools.js';

export interface SchedulesLayer {
  dispose: Disposer;
}

export interface ScheduleSettings {
  /** Default: the process clock, whose timers never keep the process alive. */
  clock?: ScheduleClock;
}

/** The schedule service of a root agent the layer set up; absent for a child. */
export function schedulesOf(handle: AgentHandle): ScheduleService | undefined {
  return handle.context.find(scheduleServiceKey);
}

export function installSchedules(
  runtime: AgentRuntime,
  settings: ScheduleSettings = {},
): SchedulesLayer {
  const clock = settings.clock ?? processClock;
  const tools = scheduleTools();
  const setUp = (handle: AgentHandle): Disposer | undefined => {
    if (handle.log.header.delegationDepth !== 0) return undefined;
    const source = { source: SCHEDULE_SOURCE };
    const service = new ScheduleService({
      log: handle.log,
      clock,
      fire: (text) => {
        if (!handle.log.closed) handle.agent.followup(text, source);
      },
      reportMissed: (text) => handle.agent.inject(text, source),
    });
    const disposers: Disposer[] = [
      handle.context.provide(scheduleServiceKey, service),
      ...tools.map((tool) => handle.tools.register(tool)),
      addStandingState(handle.context, handle.agent.id, () =>
        schedulesStandingText(service.schedules, service.now()),
      ),
      () => service.dispose(),
    ];
    return disposeAll(disposers);
  };
  const disposers: Disposer[] = [
    runtime.toolCatalog.declare(tools, {
      notForChildren:
        'only root agents get it: a child ends with its task, so its schedule would wake nobody',
    }),
    runtime.onAgent(setUp),
  ];
  return { dispose: disposeAll(disposers) };
}

/**
 * What `loom run` tells the user about its session's schedules when it opens and when it ends:
 * those missed while no process held it, and those still pending (they fire only while a
 * process holds the session). Empty when there is nothing to say.
 */
export function missedSchedulesNote(handle: AgentHandle): string {
  const service = schedulesOf(handle);
  if (!service || service.missedAtOpen.length === 0) return '';
  const ids = service.missedAtOpen.map((schedule) => schedule.id).join(', ');
  return `missed schedules (due while no process held this session; not run): ${ids}\n`;
}

export function pendingSchedulesNote(handle: AgentHandle): string {
  const service = schedulesOf(handle);
  if (!service || service.schedules.length === 0) return '';
  const now = service.now();
  const lines = service.schedules.map((schedule) => pendingLine(schedule, now)).join(', ');
  return `pending schedules: ${lines}; they fire only while a process holds the session: loom run --session ${handle.log.header.sessionId} (or loom acp)\n`;
}
