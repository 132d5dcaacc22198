/**
 * One ACP agent as a child process: standard input and output carry the protocol, standard error
 * is kept (its tail) for error messages. It runs as the leader of its own process group, which
 * carries a watchdog: `/bin/sh` forks a subshell that blocks reading a lifeline on fd 3, then
 * `exec`s the agent in its own place. When the lifeline closes (Loom closes it to kill the group,
 * and the kernel closes it when Loom dies, `kill -9` included) the watchdog SIGKILLs the group.
 * Must never leave a group running after `kill`, after `end`'s grace, or after Loom's exit.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { killProcessGroup } from '../tools/shell-process.js';

/** `sh -c WATCHDOG NAME COMMAND ARGS…`: the watchdog keeps fd 3, the agent never sees it. */
const WATCHDOG =
  '{ IFS= read -r line <&3; kill -9 0; } </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"';

const STDERR_TAIL_CHARACTERS = 4000;

export interface AgentProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AgentProcess {
  /** The process (and group) id; undefined when it could not be started. */
  readonly pid: number | undefined;
  /** The process's standard input, as a web stream (the protocol's output). */
  readonly input: WritableStream<Uint8Array>;
  /** The process's standard output, as a web stream (the protocol's input). */
  readonly output: ReadableStream<Uint8Array>;
  /** Settles once the agent has exited (or could not start). Never rejects. */
  readonly exited: Promise<AgentExit>;
  /** The last few thousand characters the agent wrote to standard error. */
  stderrTail(): string;
  /**
   * Closes its standard input, waits up to `graceMs` for it to exit (and for the rest of its
   * standard error), then kills the group.
   */
  end(graceMs: number): Promise<AgentExit>;
  /** Kills the whole group now; idempotent. */
  kill(): void;
}

/** Every group this process started and has not seen end: killed when Loom exits. */
const liveGroups = new Set<AgentProcess>();
let exitHookInstalled = false;

function killLiveGroupsOnExit(): void {
  for (const agent of liveGroups) agent.kill();
}

export function spawnAgentProcess(options: AgentProcessOptions): AgentProcess {
  const child = spawn(
    '/bin/sh',
    ['-c', WATCHDOG, 'loom-acp-agent', options.command, ...options.args],
    {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    },
  ) as ChildProcessWithoutNullStreams;
  const lifeline = child.stdio[3] as unknown as NodeJS.ReadWriteStream & { destroy(): void };
  // Never written; errors on the pipes of an agent that has gone change nothing.
  lifeline.on('error', () => {});
  child.stdin.on('error', () => {});
  child.stdout.on('error', () => {});
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_CHARACTERS);
  });
  // Its last words may arrive after the exit: `end` waits for them (within the grace period).
  const stderrClosed = new Promise<void>((resolve) => child.stderr.on('close', resolve));
  let killed = false;
  const exited = new Promise<AgentExit>((resolve) => {
    child.on('error', (error) => {
      stderr += `could not start ${options.command}: ${error.message}`;
      resolve({ code: null, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const kill = () => {
    if (killed) return;
    killed = true;
    liveGroups.delete(agent);
    if (child.pid !== undefined) killProcessGroup(child.pid);
    lifeline.destroy();
  };
  // Whatever the agent left in its group ends with it: closing the lifeline fires the watchdog.
  void exited.then(kill);
  const agent: AgentProcess = {
    pid: child.pid,
    input: Writable.toWeb(child.stdin),
    output: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    exited,
    stderrTail: () => stderr.trim(),
    async end(graceMs) {
      if (!child.stdin.destroyed) child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all([exited, stderrClosed]), graceOver]);
      clearTimeout(timer);
      kill();
      return exited;
    },
    kill,
  };
  liveGroups.add(agent);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killLiveGroupsOnExit);
  }
  return agent;
}
