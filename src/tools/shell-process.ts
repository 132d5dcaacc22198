/**
 * One shell command as a child process, shared by the foreground `bash` tool and its background
 * jobs: run with `-c` in its own process group, stdin empty, stdout and stderr decoded and handed
 * over as they arrive. `kill` takes down the whole group. Must never hang on pipes a grandchild
 * still holds: `ended` settles a short grace after the shell has exited or was killed.
 *
 * Nothing of the group may outlive Loom, however Loom dies (`kill -9` included), so the group
 * carries its own watchdog: `/bin/sh` starts as the group leader with a pipe from Loom as its
 * stdin (the lifeline), forks a tiny subshell that blocks reading the lifeline, then `exec`s the
 * real shell in its own place (same pid, so exit codes and signals are the command's own). When
 * the lifeline closes (Loom closes it once the shell has exited, and the kernel closes it when
 * Loom dies) the read returns and the watchdog SIGKILLs the group, itself included. It is a
 * member of the group, so the group id cannot be reused while it may still fire. The watchdog
 * exists before the command's first instruction runs, so there is no window in which the command
 * runs unguarded. Cost: one `sh` fork per command, no extra exec. A process that leaves the group
 * on purpose (`setsid`, a daemon) is out of its reach; session repair finds those by the
 * `LOOM_COMMAND_ID` variable every command inherits.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** Set in every command's environment; repair recognises a command's processes by its value. */
export const COMMAND_ID_VARIABLE = 'LOOM_COMMAND_ID';

/**
 * Runs as `sh -c WATCHDOG SHELL [LAUNCHER...] SHELL -c COMMAND`: keeps the lifeline on fd 3 for
 * the watchdog only, then replaces itself with the rest of its arguments reading /dev/null. A
 * launcher (bubblewrap) thus runs as the group's leader, with the watchdog outside it.
 */
const WATCHDOG =
  'exec 3<&0 0</dev/null; ' +
  '{ IFS= read -r line <&3; kill -9 0; } >/dev/null 2>&1 & ' +
  'exec 3<&-; exec "$@"';

export interface ShellOptions {
  /** Shell binary run with `-c`. */
  shell: string;
  command: string;
  cwd: string;
  /** The command's environment (already without credentials). */
  env: NodeJS.ProcessEnv;
  /** How long to wait for output pipes to close after the shell ends. */
  drainGraceMs: number;
  /** Receives decoded output in arrival order; must not throw. */
  onOutput(text: string): void;
  /**
   * Characters of output the caller keeps (head and tail). A runner that buffers the output
   * elsewhere (an editor's terminal) may drop what lies far beyond it; local runs ignore it.
   */
  outputLimit?: number;
  /**
   * Program and arguments the command runs under (`bwrap ... --`, see tools/command-sandbox.ts);
   * it runs as the group's leader, so killing the group kills what it started. Default none.
   */
  launcher?: readonly string[];
}

export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ShellProcess {
  /** The shell's pid, which is also its process group's id; undefined when it could not start. */
  readonly pid: number | undefined;
  /** The value of `LOOM_COMMAND_ID` in the command's environment. */
  readonly commandId: string;
  /**
   * Kills the process group unless the shell has already exited (then it only stops waiting
   * for the pipes). Returns whether it killed; idempotent.
   */
  kill(): boolean;
  /**
   * Settles once the output is drained, with the shell's exit when it was seen by then (a killed
   * shell's exit names the signal). Rejects only when the shell could not start.
   */
  readonly ended: Promise<ShellExit | undefined>;
}

/**
 * Sends SIGKILL to the process group led by `pid`. Every group Loom starts is led by the process
 * it spawned, so a group that is gone means its leader is gone too: the pid alone is never
 * signalled, since by then it may belong to an unrelated process.
 */
export function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone: nothing left to kill.
  }
}

export function spawnShell(options: ShellOptions): ShellProcess {
  const commandId = randomUUID();
  const launcher = options.launcher ?? [];
  const missing = [launcher[0], options.shell].find(
    (program) => program !== undefined && findExecutable(program, options.env.PATH) === undefined,
  );
  if (missing !== undefined) {
    const ended = Promise.reject(new Error(`could not run ${missing}: not found`));
    ended.catch(() => {});
    return { pid: undefined, commandId, ended, kill: () => false };
  }
  const argv = ['-c', WATCHDOG, options.shell, ...launcher, options.shell, '-c', options.command];
  const child = spawn('/bin/sh', argv, {
    cwd: options.cwd,
    env: { ...options.env, [COMMAND_ID_VARIABLE]: commandId },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // The lifeline is never written; an error on it (the watchdog gone) changes nothing.
  child.stdin.on('error', () => {});
  const closeLifeline = () => child.stdin.destroy();
  const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')] as const;
  child.stdout.on('data', (chunk: Buffer) => options.onOutput(decoders[0].write(chunk)));
  child.stderr.on('data', (chunk: Buffer) => options.onOutput(decoders[1].write(chunk)));
  let exit: ShellExit | undefined;
  let killed = false;
  let settled = false;
  let drainTimer: NodeJS.Timeout | undefined;
  let resolveEnded: (exit: ShellExit | undefined) => void = () => {};
  let rejectEnded: (error: Error) => void = () => {};
  const ended = new Promise<ShellExit | undefined>((resolve, reject) => {
    resolveEnded = resolve;
    rejectEnded = reject;
  });

  const cleanUp = () => {
    settled = true;
    clearTimeout(drainTimer);
    closeLifeline();
    child.stdout.destroy();
    child.stderr.destroy();
  };
  const finish = () => {
    if (settled) return;
    cleanUp();
    for (const decoder of decoders) options.onOutput(decoder.end());
    resolveEnded(exit);
  };
  const finishSoon = () => {
    drainTimer ??= setTimeout(finish, options.drainGraceMs);
  };
  child.on('error', (error) => {
    if (settled) return;
    cleanUp();
    rejectEnded(new Error(`could not run ${options.shell}: ${error.message}`, { cause: error }));
  });
  child.on('exit', (code, signal) => {
    exit = { code, signal };
    // What the shell left behind in its group ends with it: the watchdog fires.
    closeLifeline();
    finishSoon();
  });
  child.on('close', finish);
  return {
    pid: child.pid,
    commandId,
    ended,
    kill() {
      if (settled || killed) return false;
      if (exit !== undefined) {
        finish();
        return false;
      }
      killed = true;
      if (child.pid !== undefined) killProcessGroup(child.pid);
      finishSoon();
      return true;
    },
  };
}

/** Bash from PATH, else sh. */
export function findShell(): string {
  return findExecutable('bash', process.env.PATH) ?? 'sh';
}

/** The executable `command` names (a bare name is looked up in `path`), if there is one. */
function findExecutable(command: string, path: string | undefined): string | undefined {
  if (command.includes('/')) return isExecutable(command) ? command : undefined;
  const folders = (path ?? '').split(delimiter).filter((folder) => folder !== '');
  return folders.map((folder) => join(folder, command)).find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
