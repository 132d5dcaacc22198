/**
 * One shell command as a child process, shared by the foreground `bash` tool and its background
 * jobs: spawned with `-c` in its own process group, stdin empty, stdout and stderr decoded and
 * handed over as they arrive. `kill` takes down the whole group. Must never hang on pipes a
 * grandchild still holds: `ended` settles a short grace after the shell has exited or was killed.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

export interface ShellOptions {
  /** Shell binary run with `-c`. */
  shell: string;
  command: string;
  cwd: string;
  /** How long to wait for output pipes to close after the shell ends. */
  drainGraceMs: number;
  /** Receives decoded output in arrival order; must not throw. */
  onOutput(text: string): void;
}

export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ShellProcess {
  readonly pid: number | undefined;
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

/** Sends SIGKILL to the process group led by `pid` (the process alone if that fails). */
export function killProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: nothing left to kill.
    }
  }
}

export function spawnShell(options: ShellOptions): ShellProcess {
  const child = spawn(options.shell, ['-c', options.command], {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    finishSoon();
  });
  child.on('close', finish);
  return {
    pid: child.pid,
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
  const folders = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  const bash = folders.map((folder) => join(folder, 'bash')).find(isExecutable);
  return bash ?? 'sh';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
