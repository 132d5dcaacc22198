/**
 * The MCP servers an ACP client sends in `session/new` and `session/load`, connected for that
 * session (src/mcp/session-servers.ts): stdio, streamable HTTP and HTTP+SSE ones (Loom says
 * `http: true, sse: true` at `initialize`). A server's name must fit
 * `mcp__SERVER__TOOL`, so other characters become `_`. Never rejects.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { LoomConfig } from '../config/schema.js';
import type { AgentHandle } from '../core/create-agent.js';
import {
  DEFAULT_OUTPUT_LIMIT,
  DEFAULT_START_TIMEOUT_MS,
  type McpServerDeclaration,
} from '../mcp/contract.js';
import { clientSettings } from '../mcp/server-list.js';
import { connectSessionServers, type SessionServers } from '../mcp/session-servers.js';

const ORIGIN = 'the ACP client';

function serverName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  return safe === '' ? 'server' : safe;
}

function pairs(list: ReadonlyArray<{ name: string; value: string }>): Record<string, string> {
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}

export function clientDeclarations(
  servers: readonly McpServer[],
  workspace: string,
  startTimeoutMs: number,
): McpServerDeclaration[] {
  const declarations: McpServerDeclaration[] = [];
  for (const server of servers) {
    const common = {
      name: serverName(server.name),
      source: 'client' as const,
      origin: ORIGIN,
      startTimeoutMs,
    };
    if (!('type' in server) || server.type === undefined) {
      const stdio = server as Extract<McpServer, { command: string }>;
      declarations.push({
        ...common,
        transport: 'stdio',
        command: stdio.command,
        args: stdio.args ?? [],
        env: pairs(stdio.env ?? []),
        workspace,
      });
    } else if (server.type === 'http' || server.type === 'sse') {
      declarations.push({
        ...common,
        transport: server.type,
        url: server.url,
        headers: pairs(server.headers ?? []),
      });
    }
  }
  return declarations;
}

/** Connects the client's servers for `handle`'s session; their tools are that agent's alone. */
export function connectClientServers(
  handle: AgentHandle,
  servers: readonly McpServer[],
  setup: { config: LoomConfig; workspace: string; after: Promise<unknown> },
): Promise<SessionServers> {
  const { config } = setup;
  const report = (line: string) => void process.stderr.write(line);
  const declarations = clientDeclarations(
    servers,
    setup.workspace,
    config.mcp?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
  );
  return connectSessionServers(handle, declarations, {
    outputLimit: config.mcp?.outputLimit ?? DEFAULT_OUTPUT_LIMIT,
    settings: clientSettings(config, setup.workspace),
    report,
    after: setup.after,
  });
}
