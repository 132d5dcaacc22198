/**
 * The MCP servers one agent can reach (the runtime's and its session's own), kept in the
 * agent's scope so its front end finds their prompts and resources, and the `read_mcp_resource`
 * tool, given to the agent while at least one of them declares `resources`. Of two servers of
 * the same name the first added (the runtime's) wins, as for tools.
 */

import type { Context } from '../core/context.js';
import { type Disposer, serviceKey } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { readResourceTool } from './resource-tool.js';
import type { ServerConnection } from './server-connection.js';

export class AgentMcpServers {
  private readonly connections: ServerConnection[] = [];
  private toolUndo: Disposer | undefined;

  constructor(
    private readonly handle: AgentHandle,
    /** Characters of one result or prompt kept (`mcp.outputLimit`). */
    readonly outputLimit: number,
  ) {}

  /** The servers, the first of each name. */
  list(): ServerConnection[] {
    const seen = new Set<string>();
    return this.connections.filter((connection) => {
      if (seen.has(connection.name)) return false;
      seen.add(connection.name);
      return true;
    });
  }

  find(name: string): ServerConnection | undefined {
    return this.list().find((connection) => connection.name === name);
  }

  add(connections: readonly ServerConnection[]): Disposer {
    this.connections.push(...connections);
    this.updateTool();
    return () => {
      for (const connection of connections) {
        const index = this.connections.indexOf(connection);
        if (index >= 0) this.connections.splice(index, 1);
      }
      this.updateTool();
    };
  }

  private updateTool(): void {
    const wanted = this.list().some((connection) => connection.offersResources);
    if (wanted && !this.toolUndo && !this.handle.log.closed) {
      this.toolUndo = this.handle.tools.register(readResourceTool(this, this.outputLimit));
    } else if (!wanted && this.toolUndo) {
      this.toolUndo();
      this.toolUndo = undefined;
    }
  }
}

const agentServersKey = serviceKey<AgentMcpServers>('mcp/agent-servers');

/** The MCP servers of the agent whose scope is `context`; undefined when it has none. */
export function agentServers(context: Context): AgentMcpServers | undefined {
  return context.find(agentServersKey);
}

/** Makes `connections` reachable by `handle`'s agent until the undo runs or it closes. */
export function addAgentServers(
  handle: AgentHandle,
  connections: readonly ServerConnection[],
  outputLimit: number,
): Disposer {
  let servers = handle.context.find(agentServersKey);
  if (!servers) {
    servers = new AgentMcpServers(handle, outputLimit);
    handle.context.provide(agentServersKey, servers);
  }
  const undo = servers.add(connections);
  handle.onClose(undo);
  return undo;
}
