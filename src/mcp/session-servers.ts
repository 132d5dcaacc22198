/**
 * MCP servers of one session only (those an ACP client sends in `session/new`): they start in
 * parallel, each within its start timeout, their tools go to that session's agent alone, and a
 * failed one is reported once on stderr and as an `mcp/server-failed` event in the session.
 * They close when the session's agent closes; no process outlives it or Loom's exit. Never
 * rejects.
 */
import type { AgentHandle } from '../core/create-agent.js';
import type { McpServerDeclaration, McpServerReport } from './contract.js';
import { failureEvents, failureLine, giveTools, startServers } from './install.js';

export interface SessionServerOptions {
  outputLimit: number;
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
  const results = await startServers(servers, {
    environment: options.environment ?? process.env,
    outputLimit: options.outputLimit,
  });
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
  giveTools(
    handle,
    results.flatMap((result) => result.tools),
    report,
  );
  const reports = results.map((result) => result.report);
  for (const line of reports.map(failureLine)) if (line) report(line);
  for (const event of failureEvents(reports)) handle.log.append('mcp/server-failed', event);
  return { reports, close };
}
