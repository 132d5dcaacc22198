/**
 * Session repair for `bash` commands a crashed Loom left on record: every `bash/group-start`
 * without its `bash/group-end` is looked up in /proc, whatever of it still runs is killed, and
 * the group is closed in the log with what was found. A process counts as the command's when it
 * carries the command's `LOOM_COMMAND_ID`, or sits in its process group next to one that does; a
 * group id reused by an unrelated process is never touched. Killing twice finds nothing the
 * second time, so repairing twice adds nothing. What it kills is reported on stderr when the
 * session is reopened; a process stopping its own session ends its own commands quietly.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { SessionRepairer } from '../core/session-load.js';
import { COMMAND_ID_VARIABLE } from './shell-process.js';

interface ProcessEntry {
  pid: number;
  groupId: number;
  /** The `LOOM_COMMAND_ID` of its environment, if it has one we may read. */
  commandId: string | undefined;
}

interface OpenGroup {
  callId: string;
  groupId: number;
  commandId: string;
}

export const repairLeftoverGroups: SessionRepairer = (events, situation) => {
  const open = new Map<string, OpenGroup>();
  for (const event of events) {
    if (event.type === 'bash/group-start') {
      const { callId, groupId, commandId } = event.data as OpenGroup;
      open.set(commandId, { callId, groupId, commandId });
    } else if (event.type === 'bash/group-end') {
      open.delete((event.data as OpenGroup).commandId);
    }
  }
  if (open.size === 0) return [];
  const processes = existsSync('/proc/self/stat') ? readProcessTable() : undefined;
  return [...open.values()].map((group) => {
    if (processes === undefined) {
      return { type: 'bash/group-end' as const, data: { ...group, outcome: 'unchecked' as const } };
    }
    const killed = killLeftovers(group, processes);
    // A stopping process ends its own commands as part of the stop: nothing to report.
    if (killed > 0 && situation === 'reopened') {
      process.stderr.write(
        `loom: killed ${killed} process${killed === 1 ? '' : 'es'} left running by bash call ` +
          `${group.callId} (process group ${group.groupId})\n`,
      );
    }
    return {
      type: 'bash/group-end' as const,
      data:
        killed > 0
          ? { ...group, outcome: 'killed' as const, killed }
          : { ...group, outcome: 'gone' as const },
    };
  });
};

/**
 * Kills every live process carrying `commandId` as its `LOOM_COMMAND_ID`; returns how many. For a
 * command another program started for Loom (the editor's terminal over ACP), whose process group
 * Loom does not own: a sandbox killed while it starts can leave its inner process behind.
 */
export function killCommandProcesses(commandId: string): number {
  if (!existsSync('/proc/self/stat')) return 0;
  let killed = 0;
  for (const entry of readProcessTable()) {
    if (entry.commandId !== commandId) continue;
    try {
      process.kill(entry.pid, 'SIGKILL');
      killed += 1;
    } catch {
      // It ended on its own meanwhile.
    }
  }
  return killed;
}

/** Kills the group's live processes; returns how many there were. */
function killLeftovers(group: OpenGroup, processes: readonly ProcessEntry[]): number {
  const marked = processes.filter((entry) => entry.commandId === group.commandId);
  const groupIsOurs = marked.some((entry) => entry.groupId === group.groupId);
  const leftovers = processes.filter(
    (entry) =>
      entry.commandId === group.commandId || (groupIsOurs && entry.groupId === group.groupId),
  );
  if (groupIsOurs) {
    // Also takes members forked after the table was read.
    try {
      process.kill(-group.groupId, 'SIGKILL');
    } catch {
      // The group emptied meanwhile.
    }
  }
  let killed = 0;
  for (const entry of leftovers) {
    try {
      process.kill(entry.pid, 'SIGKILL');
      killed += 1;
    } catch {
      // It ended on its own meanwhile.
    }
  }
  return killed;
}

/** Every live (not zombie) process of this user that /proc lets us read. */
function readProcessTable(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const fields = readStatus(pid);
    if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') continue;
    entries.push({ pid, groupId: Number(fields[2]), commandId: readCommandId(pid) });
  }
  return entries;
}

/** The fields of /proc/PID/stat after the command name: state, parent, group, … */
function readStatus(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function readCommandId(pid: number): string | undefined {
  let environment: string;
  try {
    environment = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  const prefix = `${COMMAND_ID_VARIABLE}=`;
  const entry = environment.split('\0').find((item) => item.startsWith(prefix));
  return entry?.slice(prefix.length);
}
