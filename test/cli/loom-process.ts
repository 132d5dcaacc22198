/**
 * Drives the built `bin/loom` as a user would: a child process with its own LOOM_HOME. Tests
 * wait on its output lines, never on time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeTree } from '../helpers/file-tree.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export const LOOM_BIN = resolve('bin/loom');

/**
 * A Loom a test starts dies with the test's process, even one the runner kills at its timeout
 * (Linux's parent-death signal, set by util-linux's `setpriv`, which then becomes node): a Loom
 * left behind, say spinning in a workflow script, would hold a core through every later test.
 */
const DIES_WITH_TEST = existsSync('/usr/bin/setpriv') ? ['--pdeathsig', 'KILL'] : undefined;

export interface LoomRun {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line that matches. */
  waitForLine(pattern: RegExp): Promise<string>;
  /** Resolves with the `count`th stderr line that matches (such as progress lines). */
  waitForStderr(pattern: RegExp, count?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function writeScriptedModel(folder: string, model: unknown): string {
  const path = join(folder, 'model.json');
  writeFileSync(path, JSON.stringify(model));
  return path;
}

export function startLoom(
  args: string[],
  options: {
    home: string;
    env?: NodeJS.ProcessEnv;
    input?: string;
    /** Leave standard input open for the test to write to (and end). */
    keepStdinOpen?: boolean;
    /** The working folder; default the test's own. */
    cwd?: string;
    /** The `bin/loom` to run; default this repository's. */
    bin?: string;
  },
): LoomRun {
  const command = [process.execPath, options.bin ?? LOOM_BIN, ...args];
  const [file, ...rest] = DIES_WITH_TEST
    ? ['/usr/bin/setpriv', ...DIES_WITH_TEST, ...command]
    : command;
  const child = spawn(file as string, rest, {
    env: { ...process.env, ...options.env, LOOM_HOME: options.home },
    stdio: 'pipe',
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  let out = '';
  let err = '';
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const stderrWaiters: Array<{ pattern: RegExp; count: number; resolve: (line: string) => void }> =
    [];
  const checkStderr = () => {
    const lines = err.split('\n');
    for (const waiter of [...stderrWaiters]) {
      const matching = lines.filter((line) => waiter.pattern.test(line));
      if (matching.length >= waiter.count) {
        stderrWaiters.splice(stderrWaiters.indexOf(waiter), 1);
        waiter.resolve(matching[waiter.count - 1] ?? '');
      }
    }
  };
  const check = (text: string, pending: typeof waiters) => {
    for (const line of text.split('\n')) {
      for (const waiter of [...pending]) {
        if (waiter.pattern.test(line)) {
          pending.splice(pending.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    check(out, waiters);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    checkStderr();
  });
  if (!options.keepStdinOpen) child.stdin.end(options.input ?? '');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForLine(pattern) {
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        check(out, waiters);
        exited.then(() =>
          reject(new Error(`loom exited before printing ${pattern}\n${out}\n${err}`)),
        );
      });
    },
    waitForStderr(pattern, count = 1) {
      return new Promise((resolve, reject) => {
        stderrWaiters.push({ pattern, count, resolve });
        checkStderr();
        exited.then(() =>
          reject(new Error(`loom exited before printing ${count} × ${pattern}\n${out}\n${err}`)),
        );
      });
    },
    exited,
  };
}

export async function runLoom(
  args: string[],
  options: { home: string; env?: NodeJS.ProcessEnv; input?: string; cwd?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startLoom(args, options);
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A fresh LOOM_HOME and workspace, with a scripted model file written into the home. */
export interface ScriptedFolders {
  home: string;
  workspace: string;
  /** The model file's path (`--model scripted:PATH`). */
  model: string;
}

export function scriptedFolders(model: unknown): ScriptedFolders {
  const home = temporaryFolder();
  return { home, workspace: temporaryFolder(), model: writeScriptedModel(home, model) };
}

export interface ScriptedRunOptions {
  /** Adds `--json`. */
  json?: boolean;
  /** More options, before the prompt (such as `--session ID`). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

function scriptedRunArgs(
  folders: ScriptedFolders,
  prompt: string,
  options: ScriptedRunOptions,
): string[] {
  return [
    'run',
    ...(options.json ? ['--json'] : []),
    '--model',
    `scripted:${folders.model}`,
    '--cwd',
    folders.workspace,
    ...(options.args ?? []),
    prompt,
  ];
}

/** Starts `loom run [--json] --model scripted:MODEL --cwd WORKSPACE [ARGS] PROMPT` in `folders`. */
export function startScriptedRun(
  folders: ScriptedFolders,
  prompt: string,
  options: ScriptedRunOptions = {},
): LoomRun {
  return startLoom(scriptedRunArgs(folders, prompt, options), {
    home: folders.home,
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
}

/** Runs `loom run` as `startScriptedRun` does, to its exit. */
export function runScripted(
  folders: ScriptedFolders,
  prompt: string,
  options: ScriptedRunOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runLoom(scriptedRunArgs(folders, prompt, options), {
    home: folders.home,
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
}

/**
 * `loom run` whose model runs `command` with `bash` and replies with the tool's result, under a
 * config whose one permission rule denies bash commands matching `deny.command` with
 * `deny.reason`. `files` are written into the workspace first.
 */
export async function runBashUnderDenyRule(
  command: string,
  deny: { command: string; reason: string },
  files: Record<string, string> = {},
): Promise<{ folders: ScriptedFolders; result: Awaited<ReturnType<typeof runLoom>> }> {
  const folders = scriptedFolders({
    rules: [callsThenReply('run it', [bashCall(command)], '{{lastToolResult}}')],
  });
  writeTree(folders.workspace, files);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `permissions:\n  - tool: bash\n    match: { command: ${JSON.stringify(deny.command)} }\n    action: deny\n    reason: ${deny.reason}\n`,
  );
  return { folders, result: await runScripted(folders, 'run it') };
}
