/**
 * Drives `bin/loom workflow …` as a user would, for the workflow CLI tests: scripts and scripted
 * models in a temporary folder, a child process whose stderr progress lines can be waited on, and
 * the `--events` file read back. Tests wait on lines and exits, never on time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOM_BIN } from './loom-process.js';

export interface WorkflowProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds `count` lines matching `pattern` (the progress lines). */
  waitForStderr(pattern: RegExp, count?: number): Promise<void>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function writeFile(folder: string, name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

export function writeJson(folder: string, name: string, value: unknown): string {
  return writeFile(folder, name, JSON.stringify(value));
}

export function startWorkflow(
  args: string[],
  options: { home: string; cwd?: string },
): WorkflowProcess {
  const child = spawn(process.execPath, [LOOM_BIN, 'workflow', ...args], {
    env: { ...process.env, LOOM_HOME: options.home, DEEPSEEK_API_KEY: '' },
    cwd: options.cwd ?? options.home,
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  const waiters: Array<{ pattern: RegExp; count: number; resolve: () => void }> = [];
  const check = () => {
    const lines = err.split('\n');
    for (const waiter of [...waiters]) {
      if (lines.filter((line) => waiter.pattern.test(line)).length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    check();
  });
  child.stdin.end();
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr(pattern, count = 1) {
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, count, resolve });
        check();
        exited.then(() =>
          reject(new Error(`loom exited before printing ${count} × ${pattern}\n${out}\n${err}`)),
        );
      });
    },
    exited,
  };
}

export function runWorkflow(
  args: string[],
  options: { home: string; cwd?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return startWorkflow(args, options).exited;
}

/** The one JSON object `--json` prints; fails the test with stderr when stdout is not that. */
export function parseResult(run: { stdout: string; stderr: string }): Record<string, unknown> {
  const lines = run.stdout.trim().split('\n');
  if (lines.length !== 1 || !lines[0]) {
    throw new Error(
      `expected one JSON line on stdout, got:\n${run.stdout}\nstderr:\n${run.stderr}`,
    );
  }
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

export type EventLine = Record<string, unknown> & { type: string };

export function readEvents(path: string): EventLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as EventLine);
}

/** SPEC §3: every agent-start has exactly one agent-end with the same seq, label and phase. */
export function agentPairs(
  events: EventLine[],
): Map<number, { start: EventLine; end?: EventLine }> {
  const pairs = new Map<number, { start: EventLine; end?: EventLine }>();
  for (const event of events) {
    if (event.type === 'workflow/agent-start') {
      if (pairs.has(event.seq as number)) throw new Error(`seq ${event.seq} started twice`);
      pairs.set(event.seq as number, { start: event });
    }
    if (event.type === 'workflow/agent-end') {
      const pair = pairs.get(event.seq as number);
      if (!pair) throw new Error(`seq ${event.seq} ended without a start`);
      if (pair.end) throw new Error(`seq ${event.seq} ended twice`);
      pair.end = event;
    }
  }
  return pairs;
}
