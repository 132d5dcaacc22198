/**
 * How the foreground `bash` call runs its command: a seam an agent's scope may fill (an editor's
 * terminal, say) with a local process group as the default. The tool keeps its arguments, time
 * limit, output cap and rendering; a runner only starts the command and kills it. Must never
 * be handed a command the permission rules have not admitted, and its `kill` must end what it
 * started (the tool calls it on timeout and when the turn is cancelled).
 */
import { serviceKey } from '../core/context.js';
import type { ToolExecution } from '../core/tool-contract.js';
import { type ShellOptions, type ShellProcess, spawnShell } from './shell-process.js';

export interface CommandRunner {
  /**
   * Starts the command. Must not throw: a command that cannot start rejects `ended`. A process
   * without a local pid has `pid` undefined and is not put on the session's process record.
   */
  start(options: ShellOptions, execution: ToolExecution): ShellProcess;
}

/** Provided on an agent's scope to replace local processes for that agent's `bash` calls. */
export const commandRunnerKey = serviceKey<CommandRunner>('tools/command-runner');

export const localCommandRunner: CommandRunner = { start: (options) => spawnShell(options) };

/** The scope's command runner, else local process groups. */
export function commandRunnerOf(execution: ToolExecution): CommandRunner {
  return execution.context.find(commandRunnerKey) ?? localCommandRunner;
}
