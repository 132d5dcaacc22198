/**
 * The MCP servers one agent can reach (the runtime's and its session's own), kept in the
 * agent's scope so its front end finds their prompts and resources, and the `read_mcp_resource`
 * tool, given to the agent while at least one of them declares `resources`. Of two servers of
 * the same name the first added (the runtime's) wins, as for tools. A reachable server's change
 * of prompts or resources is logged in the agent's session (`mcp/prompts-changed`,
 * `mcp/resources-changed`) and passed to the front end's listeners.
 */

import type { Context } from '../core/context.js';
import { type Disposer, serviceKey } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { type CatalogChange, watchCatalog } from './catalog-changes.js';
import { readResourceTool } from './resource-tool.js';
import type { ServerConnection } from './server-connection.js';

export class AgentMcpServers {
  private readonly connections: ServerConnection[] = [];
  private toolUndo: Disposer | undefined;
  private readonly watching = new Map<ServerConnection, Disposer>();
  private readonly listeners = new Set<(change: CatalogChange) => void>();

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
    for (const connection of connections) {
      if (!this.watching.has(connection)) {
        this.watching.set(
          connection,
          watchCatalog(connection, (change) => this.changed(connection, change)),
        );
      }
    }
    this.updateTool();
    return () => {
      for (const connection of connections) {
        const index = this.connections.indexOf(connection);
        if (index >= 0) this.connections.splice(index, 1);
        if (!this.connections.includes(connection)) {
          this.watching.get(connection)?.();
          this.watching.delete(connection);
        }
      }
      this.updateTool();
    };
  }

  /**
   * Calls `listener` after each change of a reachable server's prompts or resources (already
   * listed again and logged), until the undo runs.
   */
  onCatalogChanged(listener: (change: CatalogChange) => void): Disposer {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A server's prompts or resources changed: logged, then the front ends are told. */
  private changed(connection: ServerConnection, change: CatalogChange): void {
    // Of two servers of one name only the first is reachable.
    if (this.find(connection.name) !== connection) return;
    const { log } = this.handle;
    if (!log.closed) {
      const { server, names, added, removed } = change;
      if (change.kind === 'prompts') {
        log.append('mcp/prompts-changed', { server, prompts: names, added, removed });
      } else {
        log.append('mcp/resources-changed', { server, resources: names, added, removed });
      }
    }
    for (const listener of [...this.listeners]) listener(change);
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
