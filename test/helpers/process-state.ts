/**
 * Process checks for tests that must prove nothing was left running: liveness of a pid or a
 * process group (zombies count as gone), and the processes still working in a folder. Reads
 * /proc, and throws where there is none rather than let a check pass without looking; a condition
 * the test cannot trigger is polled with a deadline.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Alive means signalable and not a zombie waiting for a parent that never reaps it. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  const state = readStatus(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

/** A group is alive while a member is signalable and not a zombie (zombies keep their group). */
export function isGroupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  return processIds().some((pid) => {
    const fields = readStatus(pid);
    return (
      fields !== undefined && Number(fields[2]) === groupId && !['Z', 'X'].includes(fields[0] ?? '')
    );
  });
}

/**
 * Live processes whose working folder is `folder` and whose command line (arguments joined by
 * spaces) matches `pattern`. Throws where `proc` (default /proc) is missing.
 */
export function processesIn(folder: string, pattern: RegExp, proc = '/proc'): number[] {
  return processIds(proc).filter((pid) => {
    try {
      if (readlinkSync(`${proc}/${pid}/cwd`) !== folder) return false;
      const commandLine = readFileSync(`${proc}/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      return pattern.test(commandLine.trim()) && isAlive(pid);
    } catch {
      return false;
    }
  });
}

/** Waits for a condition the test itself cannot trigger; fails after the deadline. */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  deadlineMs = 10_000,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > deadlineMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Waits until no live process matching `pattern` works in `folder`. A group killed with SIGKILL
 * dies asynchronously, so a check made the moment Loom exits could see a process still dying;
 * one that is never killed fails the deadline.
 */
export function noneLeft(folder: string, pattern: RegExp, deadlineMs = 10_000): Promise<void> {
  return waitUntil(
    () => processesIn(folder, pattern).length === 0,
    `no process ${pattern} left in ${folder}`,
    deadlineMs,
  );
}

function requireProc(proc: string): void {
  if (!existsSync(`${proc}/self/stat`)) {
    throw new Error(`process checks read ${proc}, which this system does not have`);
  }
}

function processIds(proc = '/proc'): number[] {
  requireProc(proc);
  return readdirSync(proc)
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** The fields of /proc/PID/stat after the command name: state, parent, group, … */
function readStatus(pid: number): string[] | undefined {
  requireProc('/proc');
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  } catch {
    return undefined;
  }
}
