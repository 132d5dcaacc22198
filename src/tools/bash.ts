/**
 * The `bash` tool: runs one shell command in the workspace root in its own process group and
 * returns its combined output (head and tail kept under a cap) and exit code. A non-zero exit is
 * data for the model, not an error. Must never leave the group running after a timeout or an
 * abort: both kill the whole group and the call returns promptly.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import type { ToolDefinition, ToolOutput } from '../core/tool-contract.js';
import { BoundedOutput } from './bounded-output.js';
import type { Workspace } from './workspace.js';

export interface BashToolOptions {
  workspace: Workspace;
  /** Time limit when the call gives no `timeout_ms`. Default 120000 ms. */
  defaultTimeoutMs?: number;
  /** Largest `timeout_ms` a call may ask for. Default 600000 ms. */
  maxTimeoutMs?: number;
  /** Characters of output kept (head and tail). Default 30000. */
  outputLimit?: number;
  /** Shell binary run with `-c`. Default bash from PATH, else sh. */
  shell?: string;
  /** How long to wait for output pipes to close after the shell ends. Default 250 ms. */
  drainGraceMs?: number;
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

export function bashTool(options: BashToolOptions): ToolDefinition {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const schema = z.strictObject({
    command: z.string().min(1).describe('The shell command to run (bash syntax).'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(maxTimeoutMs)
      .optional()
      .describe(
        `Time limit in milliseconds. Default ${defaultTimeoutMs}, at most ${maxTimeoutMs}.`,
      ),
    description: z
      .string()
      .optional()
      .describe('A short summary of what the command does, shown to the user.'),
  });
  const settings: RunSettings = {
    shell: options.shell ?? findShell(),
    cwd: resolve(options.workspace.root),
    outputLimit: options.outputLimit ?? 30_000,
    drainGraceMs: options.drainGraceMs ?? 250,
  };
  return defineTool({
    name: 'bash',
    description:
      'Run a shell command in the workspace root and return its combined stdout and stderr, ' +
      'ending with "[exit code: N]". A non-zero exit code is reported, not treated as a failure. ' +
      `Long output keeps its start and end. Times out after ${defaultTimeoutMs} ms unless ` +
      'timeout_ms says otherwise; the whole process tree is killed on timeout. Stdin is empty, ' +
      'so avoid interactive commands. Prefer read_file, grep and glob for reading files.',
    schema,
    timeoutMs: maxTimeoutMs + 10_000,
    execute(args, execution) {
      return runCommand(
        args.command,
        args.timeout_ms ?? defaultTimeoutMs,
        settings,
        execution.signal,
      );
    },
  });
}

interface RunSettings {
  shell: string;
  cwd: string;
  outputLimit: number;
  drainGraceMs: number;
}

function runCommand(
  command: string,
  timeoutMs: number,
  settings: RunSettings,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (signal.aborted) return Promise.resolve({ content: '[killed: aborted]', isError: true });
  return new Promise((resolvePromise, reject) => {
    const child = spawn(settings.shell, ['-c', command], {
      cwd: settings.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = new BoundedOutput(settings.outputLimit);
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')] as const;
    child.stdout.on('data', (chunk: Buffer) => output.append(decoders[0].write(chunk)));
    child.stderr.on('data', (chunk: Buffer) => output.append(decoders[1].write(chunk)));
    let killedFor: 'timeout' | 'aborted' | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const cleanUp = () => {
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const finish = () => {
      if (settled) return;
      cleanUp();
      for (const decoder of decoders) output.append(decoder.end());
      resolvePromise(render(output, killedFor, exit, timeoutMs, child.pid));
    };
    const finishSoon = () => {
      drainTimer ??= setTimeout(finish, settings.drainGraceMs);
    };
    const kill = (reason: 'timeout' | 'aborted') => {
      if (settled || killedFor !== undefined) return;
      if (exit !== undefined) return finish();
      killedFor = reason;
      if (child.pid !== undefined) killProcessGroup(child.pid);
      finishSoon();
    };
    const onAbort = () => kill('aborted');
    const timeoutTimer = setTimeout(() => kill('timeout'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      if (settled) return;
      cleanUp();
      reject(new Error(`could not run ${settings.shell}: ${error.message}`, { cause: error }));
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      finishSoon();
    });
    child.on('close', finish);
  });
}

function render(
  output: BoundedOutput,
  killedFor: 'timeout' | 'aborted' | undefined,
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  timeoutMs: number,
  pid: number | undefined,
): ToolOutput {
  const text = output.toString();
  const status =
    killedFor === 'timeout'
      ? `[killed: timeout after ${timeoutMs} ms]`
      : killedFor === 'aborted'
        ? '[killed: aborted]'
        : exit?.code === null || exit === undefined
          ? `[killed: signal ${exit?.signal ?? 'unknown'}]`
          : `[exit code: ${exit.code}]`;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return {
    content: `${text}${separator}${status}`,
    isError: killedFor !== undefined,
    metadata: {
      exitCode: exit?.code ?? null,
      killed: killedFor ?? null,
      outputCut: output.cut,
      pid: pid ?? null,
    },
  };
}

function findShell(): string {
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
