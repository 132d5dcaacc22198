/**
 * The `bash` tool: runs one shell command in the workspace root in its own process group and
 * returns its combined output (head and tail kept under a cap) and exit code. A non-zero exit is
 * data for the model, not an error. Must never leave the group running after a timeout, an abort
 * or the command's own exit, nor after Loom dies (see `shell-process.ts`), and never hands a
 * command Loom's credentials (see `command-environment.ts`). A foreground command runs through
 * the scope's command runner (`command-runner.ts`; local by default). With `background` it also
 * offers `run_in_background`, which hands the command to the scope's background runner.
 */
import { resolve } from 'node:path';
import type { z } from 'zod';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import { credentialVariablesKey } from '../core/credential-variables.js';
import type { ToolDefinition, ToolExecution, ToolOutput } from '../core/tool-contract.js';
import { startBackgroundCommand } from './background-bash.js';
import { BoundedOutput } from './bounded-output.js';
import { commandEnvironment } from './command-environment.js';
import { commandRunnerOf } from './command-runner.js';
import { sandboxDecision } from './command-sandbox.js';
import { recordGroup } from './process-group-log.js';
import type { RunSettings } from './run-settings.js';
import { findShell, type ShellExit } from './shell-process.js';
import { type Workspace, workspaceOf } from './workspace.js';

export { killProcessGroup } from './shell-process.js';

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
  /**
   * Offer `run_in_background` (a job of kind `bash`). Default false; turn it on only where a
   * background runner is installed, or the model is offered a choice that always fails.
   */
  background?: boolean;
  /** Characters of a background job's unread output kept between reads. Default 1048576. */
  backgroundOutputLimit?: number;
  /**
   * The environment commands start from, before credentials are taken out (see
   * `command-environment.ts`). Default `process.env`, read at each call.
   */
  environment?: NodeJS.ProcessEnv;
  /** Credential variables passed to commands on purpose (`tools.bash.env.passthrough`). Default none. */
  passthroughVariables?: readonly string[];
  /** What the sandbox allows, told to the model in the description (config `sandbox:`). Default none. */
  sandboxDescription?: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

function argumentsSchema(
  zod: typeof z,
  defaultTimeoutMs: number,
  maxTimeoutMs: number,
  background: boolean,
) {
  return zod.strictObject({
    command: zod.string().min(1).describe('The shell command to run (bash syntax).'),
    timeout_ms: zod
      .number()
      .int()
      .min(1)
      .max(maxTimeoutMs)
      .optional()
      .describe(`Time limit in milliseconds; default ${defaultTimeoutMs}.`),
    description: zod
      .string()
      .optional()
      .describe('What the command does, in a few words; shown to the user.'),
    outside_sandbox: zod
      .boolean()
      .optional()
      .describe(
        'Run outside the sandbox: only for a command it stopped that must run; the user is asked ' +
          'first (or a permission rule allows it).',
      ),
    ...(background
      ? {
          run_in_background: zod
            .boolean()
            .optional()
            .describe(
              'Run as a background job (servers, watchers, long builds): returns its id at once and ' +
                'you are told when it ends; job_output reads it, job_kill stops it.',
            ),
        }
      : {}),
  });
}

export function bashTool(options: BashToolOptions): ToolDefinition {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxTimeoutMs = options.maxTimeoutMs ?? MAX_TIMEOUT_MS;
  const background = options.background === true;
  const fixedSettings = {
    shell: options.shell ?? findShell(),
    outputLimit: options.outputLimit ?? 30_000,
    drainGraceMs: options.drainGraceMs ?? 250,
  };
  const settingsFor = (execution: ToolExecution): RunSettings => ({
    ...fixedSettings,
    cwd: resolve(workspaceOf(options.workspace, execution).root),
    env: commandEnvironment({
      base: options.environment ?? process.env,
      credentials: execution.context.find(credentialVariablesKey),
      passthrough: options.passthroughVariables ?? [],
    }),
  });
  const backgroundOutputLimit = options.backgroundOutputLimit ?? 1_048_576;
  const defaultTimeouts =
    defaultTimeoutMs === DEFAULT_TIMEOUT_MS && maxTimeoutMs === MAX_TIMEOUT_MS;
  return defineBuiltinTool({
    name: 'bash',
    description:
      'Run a shell command in the workspace root. Returns stdout and stderr together, then ' +
      '"[exit code: N]" (a non-zero code is reported, not a failure); long output keeps its start ' +
      'and end. At timeout_ms the whole process tree is killed; what it leaves running ends with ' +
      'it. Stdin is empty: avoid interactive commands. Credentials (API keys, *_TOKEN, *_SECRET) ' +
      'are not in its environment. Prefer read_file, grep and glob for reading files.' +
      (options.sandboxDescription ? ` ${options.sandboxDescription}` : ''),
    arguments: (zod) => argumentsSchema(zod, defaultTimeoutMs, maxTimeoutMs, background),
    // The timeouts are in the schema: only the default ones have a generated schema.
    variant: defaultTimeouts ? (background ? 'bash' : 'bash/foreground') : null,
    timeoutMs: maxTimeoutMs + 10_000,
    execute(args, execution) {
      const timeoutMs = args.timeout_ms ?? defaultTimeoutMs;
      const unconfined = settingsFor(execution);
      const decision = sandboxDecision({
        cwd: unconfined.cwd,
        env: unconfined.env,
        outsideSandbox: args.outside_sandbox === true,
        execution,
      });
      if (decision.kind === 'refused') return { content: decision.message, isError: true };
      const settings: RunSettings =
        decision.kind === 'sandboxed'
          ? { ...unconfined, env: decision.launch.env, launch: decision.launch }
          : unconfined;
      if (background && 'run_in_background' in args && args.run_in_background === true) {
        return startBackgroundCommand({
          command: args.command,
          timeoutMs,
          settings: { ...settings, outputLimit: backgroundOutputLimit },
          execution,
        });
      }
      return runCommand(args.command, timeoutMs, settings, execution);
    },
  });
}

async function runCommand(
  command: string,
  timeoutMs: number,
  settings: RunSettings,
  execution: ToolExecution,
): Promise<ToolOutput> {
  const { signal } = execution;
  if (signal.aborted) {
    settings.launch?.ended();
    return { content: '[killed: aborted]', isError: true };
  }
  const output = new BoundedOutput(settings.outputLimit);
  const shell = commandRunnerOf(execution).start(
    {
      shell: settings.shell,
      command,
      cwd: settings.cwd,
      env: settings.env,
      drainGraceMs: settings.drainGraceMs,
      onOutput: (text) => output.append(text),
      outputLimit: settings.outputLimit,
      ...(settings.launch ? { launcher: settings.launch.launcher } : {}),
    },
    execution,
  );
  const group = recordGroup(shell, execution);
  let killedFor: 'timeout' | 'aborted' | undefined;
  const kill = (reason: 'timeout' | 'aborted') => {
    if (killedFor !== undefined || !shell.kill()) return;
    killedFor = reason;
    group?.ended();
  };
  const onAbort = () => kill('aborted');
  const timeoutTimer = setTimeout(() => kill('timeout'), timeoutMs);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await shell.ended;
    const rendered = render(output, killedFor, exit, timeoutMs, shell.pid);
    const failed = killedFor === undefined && exit?.code !== 0;
    const note = failed ? settings.launch?.explain(output.toString()) : undefined;
    return note ? { ...rendered, content: `${rendered.content}\n${note}` } : rendered;
  } finally {
    clearTimeout(timeoutTimer);
    signal.removeEventListener('abort', onAbort);
    group?.ended();
    settings.launch?.ended();
  }
}

function render(
  output: BoundedOutput,
  killedFor: 'timeout' | 'aborted' | undefined,
  exit: ShellExit | undefined,
  timeoutMs: number,
  pid: number | undefined,
): Exclude<ToolOutput, string> {
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
