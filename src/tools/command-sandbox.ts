/**
 * The seam through which a model's shell command is confined: a scope may provide a
 * `CommandSandbox` (the `sandbox` room does, from config `sandbox:`), and `bash` asks it, before
 * each command, how to start it: as is, under a launcher (bubblewrap), or not at all. Without a
 * provider commands run as is. The sandbox must never be bypassed by the tool: a refusal is
 * returned to the model as the call's result, never turned into an unconfined run.
 */
import { serviceKey } from '../core/context.js';
import type { ToolExecution } from '../core/tool-contract.js';

export interface SandboxLaunch {
  /** Program and arguments placed before `SHELL -c COMMAND` (such as `bwrap ... --`). */
  launcher: readonly string[];
  /** The command's environment inside the sandbox (TMPDIR and the like added). */
  env: NodeJS.ProcessEnv;
  /** Called once when the command's process has ended (placeholders are removed). Must not throw. */
  ended(): void;
  /**
   * One line telling the model the sandbox stopped the command and which key allows it, when
   * `output` (of a command that failed) shows so; undefined otherwise. Must not throw.
   */
  explain(output: string): string | undefined;
}

export type SandboxDecision =
  | { kind: 'unconfined' }
  | { kind: 'sandboxed'; launch: SandboxLaunch }
  | { kind: 'refused'; message: string };

export interface SandboxRequest {
  /** The folder the command runs in: the agent's workspace root. */
  cwd: string;
  /** The command's environment, credentials already taken out. */
  env: NodeJS.ProcessEnv;
  /** The call asked `outside_sandbox: true`. */
  outsideSandbox: boolean;
  execution: ToolExecution;
}

export interface CommandSandbox {
  /** Must not throw: a problem is a `refused` decision naming what to change. */
  prepare(request: SandboxRequest): SandboxDecision;
}

export const commandSandboxKey = serviceKey<CommandSandbox>('tools/command-sandbox');

/** The scope's sandbox decision for one command; unconfined when no sandbox is provided. */
export function sandboxDecision(request: SandboxRequest): SandboxDecision {
  const sandbox = request.execution.context.find(commandSandboxKey);
  return sandbox ? sandbox.prepare(request) : { kind: 'unconfined' };
}
