/**
 * MCP servers of one session only (those an ACP client sends in `session/new`): they start in
 * parallel, each within its start timeout, their tools go to that session's agent alone (and
 * are replaced when a server says they changed, logged as `mcp/tools-changed`), and a
 * failed one is reported once on stderr and as an `mcp/server-failed` event in the session.
 * They close when the session's agent closes; no process outlives it or Loom's exit. Never
 * rejects.
 */
import type { AgentHandle } from '../core/create-agent.js';
import { addAgentServers } from './agent-servers.js';
import type { McpClientSettings, McpServerDeclaration, McpServerReport } from './contract.js';
import {
  failureEvents,
  failureLine,
  followToolChanges,
  giveTools,
  type StartOptions,
  startServers,
} from './install.js';

export interface SessionServerOptions {
  outputLimit: number;
  /** Roots (the session's workspace first) and call limits. */
  settings: McpClientSettings;
  environment?: NodeJS.ProcessEnv;
  /** Receives each failure's one line; default standard error. Must not throw. */
  report?: (line: string) => void;
  /**
   * Awaited before the tools are given (the runtime's own servers), so that of two tools of the
   * same name the runtime's wins, whichever server started first.
   */
  after?: Promise<unknown>;
}

export interface SessionServers {
  reports: McpServerReport[];
  /** Ends every server (as the agent's close does); resolves once their processes are gone. */
  close(): Promise<void>;
}

export async function connectSessionServers(
  handle: AgentHandle,
  servers: readonly McpServerDeclaration[],
  options: SessionServerOptions,
): Promise<SessionServers> {
  if (servers.length === 0) return { reports: [], close: async () => {} };
  const report = options.report ?? ((line: string) => void process.stderr.write(line));
  const startOptions: StartOptions = {
    environment: options.environment ?? process.env,
    outputLimit: options.outputLimit,
    settings: options.settings,
    // Between calls (from the start on), an elicitation goes to the session's agent.
    idleCaller: () =>
      handle.log.closed
        ? undefined
        : { agentId: handle.log.header.sessionId, context: handle.context },
    report,
  };
  const results = await startServers(servers, startOptions);
  const connections = results.map((result) => result.connection);
  const killAll = () => {
    for (const connection of connections) connection.killNow();
  };
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= Promise.all(connections.map((connection) => connection.close())).then(() => {
      process.off('exit', killAll);
    });
    return closing;
  };
  process.on('exit', killAll);
  if (handle.log.closed) {
    await close();
    return { reports: results.map((result) => result.report), close };
  }
  handle.onClose(() => void close());
  await options.after;
  addAgentServers(
    handle,
    results
      .filter((result) => result.report.status.state === 'connected')
      .map((result) => result.connection),
    options.outputLimit,
  );
  for (const result of results) {
    let undo = giveTools(handle, result.tools, report);
    followToolChanges(result, startOptions, (tools, change) => {
      if (handle.log.closed) return;
      undo();
      undo = giveTools(handle, tools, report);
      handle.log.append('mcp/tools-changed', change);
    });
  }
  const reports = results.map((result) => result.report);
  for (const line of reports.map(failureLine)) if (line) report(line);
  for (const event of failureEvents(reports)) handle.log.append('mcp/server-failed', event);
  return { reports, close };
}
