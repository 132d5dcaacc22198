/**
 * The MCP layer of a runtime: the servers config and `.mcp.json` declare start together, once,
 * when the first session asks (`ready`), each within its start timeout. A connected server's
 * tools go to every agent; a failed one is reported once on stderr and, in each root session
 * that waits for it, as an `mcp/server-failed` event, and its tools are absent. A server that
 * says its tools changed has them listed again and replaced on every agent (logged as
 * `mcp/tools-changed`), so the next request offers the new set. `ready` never rejects and never
 * waits longer than the slowest start timeout. Installing starts nothing and loads no SDK; no
 * server process outlives `dispose()` or the Loom process.
 */

import { errorMessage, LoomError } from '../base/errors.js';
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { addAgentServers } from './agent-servers.js';
import {
  DEFAULT_OUTPUT_LIMIT,
  type McpCaller,
  type McpClientSettings,
  type McpSandboxLauncher,
  type McpServerDeclaration,
  type McpServerFailedEvent,
  type McpServerReport,
  type McpToolReport,
  type McpToolsChangedEvent,
} from './contract.js';
import { readResourceTool } from './resource-tool.js';
import { type ListedTool, ServerConnection } from './server-connection.js';
import { serverTools } from './server-tools.js';
import { McpStartFailure } from './server-transport.js';

export interface McpOptions {
  servers: readonly McpServerDeclaration[];
  /** Roots and call limits every connection shares (server-list.ts `clientSettings`). */
  settings: McpClientSettings;
  /** Characters of one result kept; default 30000. */
  outputLimit?: number;
  /** Where `${NAME}` references are read; default `process.env`. */
  environment?: NodeJS.ProcessEnv;
  /** Receives each failure's one line; default standard error. Must not throw. */
  report?: (line: string) => void;
  /** Starts servers marked `sandbox: true` under the sandbox; without it they fail to start. */
  sandboxLauncher?: McpSandboxLauncher;
}

export interface McpLayer {
  /** Whether any server is declared (none: `ready` does nothing and no SDK is loaded). */
  readonly configured: boolean;
  /**
   * Starts the servers (the first call; later ones wait for the same start), gives the
   * connected ones' tools to every agent, `handle`'s too, and logs each failure once in
   * `handle`'s session. Never rejects.
   */
  ready(handle?: AgentHandle): Promise<McpServerReport[]>;
  /** Ends every server's connection and process; its tools leave every agent. */
  dispose(): Promise<void>;
}

export interface StartedServer {
  report: McpServerReport;
  connection: ServerConnection;
  tools: ToolDefinition[];
}

export interface StartOptions {
  environment: NodeJS.ProcessEnv;
  outputLimit: number;
  settings: McpClientSettings;
  sandboxLauncher?: McpSandboxLauncher;
  /**
   * Who answers a server's elicitation when no call is in flight (from its start on: a server
   * may ask right after it connects); absent or undefined: it is declined.
   */
  idleCaller?: () => McpCaller | undefined;
  /** Receives each line that says an elicitation was declined for nobody to answer it. */
  report?: (line: string) => void;
}

/** Starts `servers` in parallel; each report says what its start came to. Never rejects. */
export async function startServers(
  servers: readonly McpServerDeclaration[],
  options: StartOptions,
): Promise<StartedServer[]> {
  return Promise.all(
    servers.map(async (declaration) => {
      const connection = new ServerConnection(
        declaration,
        options.environment,
        options.settings,
        options.sandboxLauncher,
      );
      connection.idleCaller = options.idleCaller;
      connection.onUnanswered = (message) =>
        options.report?.(
          `loom: MCP server ${declaration.name} asked for input with no session to answer it (no call of it in flight, and not exactly one session); declined: ${message}\n`,
        );
      const base = {
        name: declaration.name,
        transport: declaration.transport,
        source: declaration.source,
      };
      try {
        const listed = await connection.start();
        const { tools, reports } = serverTools(connection, listed.tools, toolOptions(options));
        const status = {
          state: 'connected' as const,
          tools: reports,
          ...(listed.serverVersion ? { serverVersion: listed.serverVersion } : {}),
        };
        return { report: { ...base, status }, connection, tools };
      } catch (error) {
        await connection.close();
        const reason = error instanceof McpStartFailure ? error.reason : 'error';
        const status = { state: 'failed' as const, reason, message: errorMessage(error) };
        return { report: { ...base, status }, connection, tools: [] };
      }
    }),
  );
}

function toolOptions(options: StartOptions) {
  return { outputLimit: options.outputLimit, maxCallMs: options.settings.maxCallMs };
}

/**
 * Follows `started`'s tool list: each time its server lists new tools, `apply` gets them as
 * agent tools with the event that says what changed, and the report is brought up to date.
 */
export function followToolChanges(
  started: StartedServer,
  options: StartOptions,
  apply: (tools: ToolDefinition[], change: McpToolsChangedEvent) => void,
): void {
  const { connection, report } = started;
  connection.onToolsChanged = (listed: ListedTool[]) => {
    if (report.status.state !== 'connected') return;
    const { tools, reports } = serverTools(connection, listed, toolOptions(options));
    const before = offered(report.status.tools);
    const after = offered(reports);
    report.status = { ...report.status, tools: reports };
    started.tools = tools;
    apply(tools, {
      server: report.name,
      tools: after,
      added: after.filter((name) => !before.includes(name)),
      removed: before.filter((name) => !after.includes(name)),
    });
  };
}

function offered(reports: readonly McpToolReport[]): string[] {
  return reports.flatMap((tool) => (tool.agentName === undefined ? [] : [tool.agentName]));
}

/** The one line a failed server is reported with. */
export function failureLine(report: McpServerReport): string | undefined {
  if (report.status.state !== 'failed') return undefined;
  const what = report.status.reason === 'timeout' ? 'did not start in time' : 'failed to start';
  return `loom: MCP server ${report.name} (${report.transport}, ${report.source}) ${what}: ${report.status.message}; its tools are absent\n`;
}

export function failureEvents(reports: readonly McpServerReport[]): McpServerFailedEvent[] {
  return reports.flatMap((report) =>
    report.status.state === 'failed'
      ? [
          {
            server: report.name,
            transport: report.transport,
            source: report.source,
            reason: report.status.reason,
            message: report.status.message,
          },
        ]
      : [],
  );
}

const leftOut = (name: string) =>
  `loom: MCP tool ${name} is left out: the session already has a tool of that name\n`;

/**
 * Gives `tools` to `handle` until it closes or the returned undo runs. A name the agent already
 * has (another server of the same name: config's and an ACP client's) keeps its first tool; the
 * rest are reported to `report` and left out.
 */
export function giveTools(
  handle: AgentHandle,
  tools: readonly ToolDefinition[],
  report: (line: string) => void = () => {},
): Disposer {
  const registrations: Disposer[] = [];
  for (const tool of tools) {
    try {
      registrations.push(handle.tools.register(tool));
    } catch (error) {
      if (!(error instanceof LoomError && error.code === 'DUPLICATE_TOOL')) throw error;
      report(leftOut(tool.name));
    }
  }
  let given = true;
  const undo = () => {
    if (!given) return;
    given = false;
    for (const dispose of registrations) dispose();
  };
  handle.onClose(undo);
  return undo;
}

export function installMcp(runtime: AgentRuntime, options: McpOptions): McpLayer {
  const environment = options.environment ?? process.env;
  const outputLimit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  const report = options.report ?? ((line: string) => void process.stderr.write(line));
  const startOptions: StartOptions = {
    environment,
    outputLimit,
    settings: options.settings,
    ...(options.sandboxLauncher ? { sandboxLauncher: options.sandboxLauncher } : {}),
    // Between calls, an elicitation goes to the only root session.
    idleCaller: () => {
      const roots = runtime.liveAgents.filter((handle) => handle.log.header.delegationDepth === 0);
      const only = roots.length === 1 ? roots[0] : undefined;
      return only ? { agentId: only.log.header.sessionId, context: only.context } : undefined;
    },
    report,
  };
  const connections: ServerConnection[] = [];
  const undos: Disposer[] = [];
  const logged = new WeakSet<AgentHandle>();
  let started: Promise<McpServerReport[]> | undefined;
  let disposed = false;
  const killAll = () => {
    for (const connection of connections) connection.killNow();
  };

  /**
   * Gives `tools` to every agent, live and future; the undo takes them back. One whose name is
   * taken (another offer's, or a live agent's own tool) is left out, and said so.
   */
  const give = (tools: readonly ToolDefinition[]): Disposer => {
    const fresh = tools.filter((tool) => {
      const taken =
        runtime.offers(tool.name) ||
        runtime.liveAgents.some((handle) => handle.tools.lookup(tool.name) !== undefined);
      if (taken) report(leftOut(tool.name));
      return !taken;
    });
    return fresh.length === 0 ? () => {} : runtime.offerTools(fresh);
  };

  const start = async (): Promise<McpServerReport[]> => {
    process.on('exit', killAll);
    const results = await startServers(options.servers, startOptions);
    for (const result of results) connections.push(result.connection);
    if (disposed) {
      await Promise.all(results.map((result) => result.connection.close()));
      return results.map((result) => result.report);
    }
    for (const result of results) {
      let undoServer = give(result.tools);
      undos.push(() => undoServer());
      followToolChanges(result, startOptions, (tools, change) => {
        if (disposed) return;
        undoServer();
        undoServer = give(tools);
        for (const handle of runtime.liveAgents) {
          if (!handle.log.closed) handle.log.append('mcp/tools-changed', change);
        }
      });
    }
    const connected = results
      .filter((result) => result.report.status.state === 'connected')
      .map((result) => result.connection);
    if (connected.length > 0) {
      // Their prompts and resources, and read_mcp_resource, for every agent.
      undos.push(
        runtime.installLayer([], (handle) => [addAgentServers(handle, connected, outputLimit)]),
      );
      for (const handle of runtime.liveAgents) {
        undos.push(addAgentServers(handle, connected, outputLimit));
      }
      if (connected.some((connection) => connection.offersResources)) {
        undos.push(
          runtime.toolCatalog.declare([
            readResourceTool({ list: () => [], find: () => undefined }, outputLimit),
          ]),
        );
      }
    }
    for (const result of results) {
      const line = failureLine(result.report);
      if (line) report(line);
    }
    return results.map((result) => result.report);
  };

  return {
    configured: options.servers.length > 0,
    async ready(handle) {
      if (options.servers.length === 0) return [];
      started ??= start();
      const reports = await started;
      if (handle && !logged.has(handle) && !handle.log.closed) {
        logged.add(handle);
        for (const event of failureEvents(reports)) handle.log.append('mcp/server-failed', event);
      }
      return reports;
    },
    async dispose() {
      disposed = true;
      for (const undo of undos.splice(0)) undo();
      await started?.catch(() => undefined);
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
      process.off('exit', killAll);
    },
  };
}
