/**
 * `bash` in the editor's terminal, for a client that advertised `terminal` at `initialize`: the
 * command runs as `SHELL -c COMMAND` in a `terminal/create` (shown in the tool call as it runs),
 * the tool waits for its exit, reads its output and releases it. `kill` (a timeout, or the turn
 * cancelled) sends `terminal/kill`; the terminal is released whatever happens. The command has
 * passed the permission rules before it gets here; this only changes where it runs.
 */
import { randomUUID } from 'node:crypto';
import type { AgentContext, EnvVariable, TerminalHandle } from '@agentclientprotocol/sdk';
import { errorMessage } from '../base/errors.js';
import type { CommandRunner, ShellExit, ShellOptions, ShellProcess } from '../tools/index.js';
import { killCommandProcesses } from '../tools/leftover-processes.js';
import { COMMAND_ID_VARIABLE } from '../tools/shell-process.js';

/** Bytes of output the terminal keeps, per character the tool keeps (UTF-8 is up to 4). */
const BYTES_PER_KEPT_CHARACTER = 4;

/** `onTerminal` hears of each terminal once it exists, with the call it runs for. */
export function clientCommandRunner(
  client: AgentContext,
  sessionId: string,
  onTerminal: (callId: string, terminalId: string) => void,
): CommandRunner {
  return {
    start(options, execution) {
      return runInTerminal(client, sessionId, options, (terminalId) =>
        onTerminal(execution.callId, terminalId),
      );
    },
  };
}

function runInTerminal(
  client: AgentContext,
  sessionId: string,
  options: ShellOptions,
  onTerminal: (terminalId: string) => void,
): ShellProcess {
  const commandId = randomUUID();
  let terminal: TerminalHandle | undefined;
  let killRequested = false;
  let settled = false;
  const kill = (handle: TerminalHandle) => {
    handle
      .kill()
      .catch((error: unknown) => {
        process.stderr.write(`loom acp: terminal/kill failed: ${errorMessage(error)}\n`);
      })
      // The editor kills the process it started; a sandbox killed as it starts can leave its
      // inner process running, so what still carries the command's id is killed too.
      .then(() => {
        if (options.launcher?.length) killCommandProcesses(commandId);
      });
  };
  const run = async (): Promise<ShellExit> => {
    try {
      terminal = await client.createTerminal({
        sessionId,
        // A sandboxed command runs in the editor's terminal under its launcher (bubblewrap) too.
        command: options.launcher?.[0] ?? options.shell,
        args: [
          ...(options.launcher?.slice(1) ?? []),
          ...(options.launcher?.length ? [options.shell] : []),
          '-c',
          options.command,
        ],
        cwd: options.cwd,
        env: environmentList(options.env, commandId),
        ...(options.outputLimit !== undefined
          ? { outputByteLimit: options.outputLimit * BYTES_PER_KEPT_CHARACTER }
          : {}),
      });
    } catch (error) {
      throw new Error(`the editor could not start the command: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    const handle = terminal;
    try {
      onTerminal(handle.id);
      if (killRequested) kill(handle);
      const exit = await handle.waitForExit();
      const { output, truncated } = await handle.currentOutput();
      if (truncated) options.onOutput("[the editor's terminal kept only the end of the output]\n");
      options.onOutput(output);
      return {
        code: exit.exitCode ?? null,
        signal: (exit.signal ?? null) as NodeJS.Signals | null,
      };
    } finally {
      await handle.release().catch(() => {});
    }
  };
  const ended = run().finally(() => {
    settled = true;
  });
  return {
    pid: undefined,
    commandId,
    ended,
    kill() {
      if (settled || killRequested) return false;
      killRequested = true;
      if (terminal) kill(terminal);
      return true;
    },
  };
}

function environmentList(env: NodeJS.ProcessEnv, commandId: string): EnvVariable[] {
  const list: EnvVariable[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== COMMAND_ID_VARIABLE) list.push({ name, value });
  }
  list.push({ name: COMMAND_ID_VARIABLE, value: commandId });
  return list;
}
