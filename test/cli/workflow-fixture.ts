/**
 * Drives `bin/loom workflow …` as a user would, for the workflow CLI tests: scripts and scripted
 * models in a temporary folder, a child process whose stderr progress lines can be waited on, and
 * the `--events` file read back. Tests wait on lines and exits, never on time.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLoom } from './loom-process.js';

export interface WorkflowProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds `count` lines matching `pattern` (the progress lines). */
  waitForStderr(pattern: RegExp, count?: number): Promise<string>;
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
  const run = startLoom(['workflow', ...args], {
    home: options.home,
    cwd: options.cwd ?? options.home,
    env: { DEEPSEEK_API_KEY: '', LOOM_MODEL: '' },
  });
  return {
    child: run.child,
    stdout: run.stdout,
    stderr: run.stderr,
    waitForStderr: run.waitForStderr,
    exited: run.exited.then(({ code }) => ({ code, stdout: run.stdout(), stderr: run.stderr() })),
  };
}

/** The model of the signal tests: a prompt starting `quick` is answered, one starting `stuck` never is. */
export const quickAndStuckModel = {
  rules: [
    { when: '^quick', reply: 'fast' },
    { when: '^stuck', hang: true },
  ],
};

/**
 * Writes `script` (as `name`) and the scripted `model` into `home` and starts `workflow run` on
 * them with `args` and `--events` into `home`; returns the process and the events file's path.
 */
export function startScriptedWorkflow(
  home: string,
  files: { name: string; script: string; model: unknown },
  args: string[] = [],
): { loom: WorkflowProcess; eventsPath: string } {
  const script = writeFile(home, files.name, files.script);
  const model = writeJson(home, 'model.json', files.model);
  const eventsPath = join(home, 'events.ndjson');
  const loom = startWorkflow(
    ['run', script, '--model', `scripted:${model}`, ...args, '--events', eventsPath],
    { home },
  );
  return { loom, eventsPath };
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

/**
 * Waits for a `--json` run that a signal stopped: asserts its exit code and a result that says
 * `cancelled`, and returns both.
 */
export async function cancelledRun(
  loom: WorkflowProcess,
  exitCode: number,
): Promise<{
  run: { code: number | null; stdout: string; stderr: string };
  result: Record<string, unknown>;
}> {
  const run = await loom.exited;
  assert.equal(run.code, exitCode, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'cancelled');
  return { run, result };
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
