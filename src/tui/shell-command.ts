/**
 * `!command` in the prompt: the person's own shell command, run in the workspace through bash
 * (the `bash` tool's process handling: its own process group, stdin empty, credentials out of
 * its environment, output capped). Its output joins the conversation: with the next message
 * when the agent is idle (an inject), or at the running turn's next step (a steer). It never
 * starts a turn by itself and never outlives its abort signal.
 */
import type { Agent } from '../core/agent.js';
import type { Context } from '../core/context.js';
import { credentialVariablesKey } from '../core/credential-variables.js';
import { BoundedOutput } from '../tools/bounded-output.js';
import { commandEnvironment } from '../tools/command-environment.js';
import { findShell, spawnShell } from '../tools/shell-process.js';

/** Characters of a command's output kept (head and tail), as the bash tool keeps by default. */
const OUTPUT_LIMIT = 30_000;
/** The sender logged with the output's message. */
export const SHELL_SOURCE = 'shell';

export interface ShellResult {
  command: string;
  output: string;
  /** Null when the command was killed or ended by a signal. */
  exitCode: number | null;
  /** Set when Esc stopped it. */
  stopped: boolean;
}

export interface ShellRunOptions {
  cwd: string;
  /** The scope whose credential names are kept out of the command's environment. */
  context: Context;
  /** Names passed on purpose (config `tools.bash.env.passthrough`). */
  passthrough?: readonly string[];
  signal?: AbortSignal;
}

export async function runShellCommand(
  command: string,
  options: ShellRunOptions,
): Promise<ShellResult> {
  const output = new BoundedOutput(OUTPUT_LIMIT);
  const shell = spawnShell({
    shell: findShell(),
    command,
    cwd: options.cwd,
    env: commandEnvironment({
      base: process.env,
      credentials: options.context.find(credentialVariablesKey),
      passthrough: options.passthrough ?? [],
    }),
    drainGraceMs: 250,
    onOutput: (text) => output.append(text),
  });
  let stopped = false;
  const stop = () => {
    stopped = shell.kill() || stopped;
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const exit = await shell.ended;
    return { command, output: output.toString(), exitCode: exit?.code ?? null, stopped };
  } catch (error) {
    return {
      command,
      output: error instanceof Error ? error.message : String(error),
      exitCode: null,
      stopped,
    };
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}

/** The message the model reads: what the person ran, its output and how it ended. */
export function shellMessage(result: ShellResult): string {
  const ending = result.stopped
    ? 'stopped by the user'
    : result.exitCode === null
      ? 'killed'
      : `exit code ${result.exitCode}`;
  const output = result.output.replace(/\n+$/, '');
  return `I ran \`${result.command}\` in the workspace (${ending}). Its output:\n${output === '' ? '(no output)' : output}`;
}

/** Hands the output to the agent: a steer while a turn runs, else it waits for the next turn. */
export function shareShellOutput(agent: Agent, result: ShellResult): 'steer' | 'inject' {
  const message = shellMessage(result);
  if (agent.status === 'running') {
    agent.steer(message, { source: SHELL_SOURCE });
    return 'steer';
  }
  agent.inject(message, { source: SHELL_SOURCE });
  return 'inject';
}
