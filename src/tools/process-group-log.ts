/**
 * The session log's record of the process groups `bash` starts: `bash/group-start` when a
 * command's group exists, `bash/group-end` once it is gone (or, after a crash, once repair has
 * checked that it is). The start is flushed to disk at once, so a `kill -9` of Loom a moment later
 * still leaves the group on record for the next open to check. Must never log a command's text or
 * environment: only ids.
 */
import { type Disposer, defineEmit, disposeAll } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addSessionRepairer } from '../core/session-load.js';
import type { ToolExecution } from '../core/tool-contract.js';
import { repairLeftoverGroups } from './leftover-processes.js';
import type { ShellProcess } from './shell-process.js';

export interface ProcessGroupStart {
  /** The `bash` call that started the command. */
  callId: string;
  /** The process group id (the shell's pid). */
  groupId: number;
  /** The command's `LOOM_COMMAND_ID`, which tells its processes apart from a reused group id. */
  commandId: string;
  /** Set when the command runs as a background job. */
  jobId?: string;
}

/**
 * How a group's end was seen: `ended` by the process that ran it; on the next open after a crash,
 * `gone` (nothing of it was left), `killed` (leftovers were found and killed) or `unchecked`
 * (this system has no /proc to look in).
 */
export type ProcessGroupOutcome = 'ended' | 'gone' | 'killed' | 'unchecked';

export interface ProcessGroupEnd {
  callId: string;
  groupId: number;
  commandId: string;
  outcome: ProcessGroupOutcome;
  /** With `killed`: how many leftover processes were killed. */
  killed?: number;
}

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** A `bash` command's process group started (foreground or background). */
    'bash/group-start': ProcessGroupStart;
    /** That group is gone. */
    'bash/group-end': ProcessGroupEnd;
  }
}

/** Emitted on the calling agent's scope when a command's group has started. */
export const processGroupStarted = defineEmit<ProcessGroupStart>('bash/group-start');
/** Emitted on the same scope once the command has ended and its group was closed. */
export const processGroupEnded = defineEmit<ProcessGroupEnd>('bash/group-end');

/**
 * Logs every agent's command groups in its session and checks, whenever a session is opened,
 * that none of the groups a crash left on record is still running. A group still open when its
 * agent closes or the process exits is closed on the record too: its watchdog ends it as the
 * lifeline closes. Returns its undo.
 */
export function installProcessGroupLog(runtime: AgentRuntime): Disposer {
  const closers = new Set<() => void>();
  const onExit = () => {
    for (const close of [...closers]) close();
  };
  process.on('exit', onExit);
  const disposers: Disposer[] = [
    () => process.off('exit', onExit),
    addSessionRepairer(repairLeftoverGroups),
    runtime.onAgent((handle) => {
      const open = new Map<string, ProcessGroupStart>();
      const logEnd = (end: ProcessGroupEnd) => {
        open.delete(end.commandId);
        if (!handle.log.closed) handle.log.append('bash/group-end', end);
      };
      const undoStart = handle.context.on(processGroupStarted, (start) => {
        if (handle.log.closed) return;
        open.set(start.commandId, start);
        handle.log.append('bash/group-start', start);
        handle.log.flush();
      });
      const undoEnd = handle.context.on(processGroupEnded, logEnd);
      const closeOpen = () => {
        for (const { callId, groupId, commandId } of [...open.values()]) {
          logEnd({ callId, groupId, commandId, outcome: 'ended' });
        }
        if (!handle.log.closed) handle.log.flush();
      };
      closers.add(closeOpen);
      return () => {
        closers.delete(closeOpen);
        undoStart();
        undoEnd();
        closeOpen();
      };
    }),
  ];
  return disposeAll(disposers);
}

/**
 * Puts the command's process group on the session's record (see `process-group-log.ts`); the
 * returned `ended` closes the record once the group is gone or killed; calling it again does
 * nothing.
 */
export function recordGroup(
  shell: ShellProcess,
  execution: ToolExecution,
  jobId?: string,
): { ended(): void } | undefined {
  if (shell.pid === undefined) return undefined;
  const start = {
    callId: execution.callId,
    groupId: shell.pid,
    commandId: shell.commandId,
    ...(jobId !== undefined ? { jobId } : {}),
  };
  execution.context.emit(processGroupStarted, start);
  let ended = false;
  return {
    ended: () => {
      if (ended) return;
      ended = true;
      execution.context.emit(processGroupEnded, {
        callId: start.callId,
        groupId: start.groupId,
        commandId: start.commandId,
        outcome: 'ended',
      });
    },
  };
}
