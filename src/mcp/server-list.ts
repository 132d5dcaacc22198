/**
 * The MCP servers a workspace declares: `mcp.servers` of the merged config and the project's
 * `.mcp.json` (`{"mcpServers": {...}}`, the format Claude Code and other tools share). A name in
 * both is config's (config.yaml is Loom's own word). A broken `.mcp.json` is a UserError naming
 * the file and field; a missing one is no servers. Reads files only; never starts a server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, UserError } from '../base/errors.js';
import { configSchemas, type LoomConfig, type McpServerConfig } from '../config/schema.js';
import {
  DEFAULT_START_TIMEOUT_MS,
  type McpServerDeclaration,
  type McpServerSource,
} from './contract.js';

export const PROJECT_SERVERS_FILE = '.mcp.json';

/** The servers of `.mcp.json` in `workspace`; `{}` when there is no such file or it is empty. */
export function readProjectServers(workspace: string): Record<string, McpServerConfig> {
  const file = join(workspace, PROJECT_SERVERS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    throw new UserError('INVALID_CONFIG', `${file}: cannot be read: ${errorMessage(error)}`);
  }
  // An empty file is no servers: the sandbox's placeholder, left behind if Loom was killed.
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError('INVALID_CONFIG', `${file}: not valid JSON: ${errorMessage(error)}`);
  }
  const parsed = configSchemas().mcpProjectFileSchema.safeParse(value);
  if (parsed.success) return parsed.data.mcpServers;
  const problems = parsed.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [...issue.path.map(String), ...(keys.length === 1 ? [String(keys[0])] : [])];
    const field = path.length > 0 ? path.join('.') : '(top level)';
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field ${keys.join(', ')}`
        : issue.code === 'invalid_key'
          ? (issue.issues[0]?.message ?? issue.message)
          : issue.message;
    return `${file}: ${field}: ${message}`;
  });
  throw new UserError('INVALID_CONFIG', `invalid MCP servers file:\n${problems.join('\n')}`);
}

export function toDeclaration(
  name: string,
  server: McpServerConfig,
  where: { source: McpServerSource; origin: string; workspace: string; startTimeoutMs: number },
): McpServerDeclaration {
  const common = {
    name,
    source: where.source,
    origin: where.origin,
    startTimeoutMs: server.startTimeoutMs ?? where.startTimeoutMs,
  };
  if (server.command !== undefined) {
    return {
      ...common,
      transport: 'stdio',
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
      workspace: where.workspace,
      ...(server.sandbox === true ? { sandbox: true as const } : {}),
    };
  }
  return { ...common, transport: 'http', url: server.url ?? '', headers: server.headers ?? {} };
}

/** Every server `config` and the workspace's `.mcp.json` declare, config's first. */
export function declaredServers(config: LoomConfig, workspace: string): McpServerDeclaration[] {
  const startTimeoutMs = config.mcp?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const configured = config.mcp?.servers ?? {};
  const declarations = Object.entries(configured).map(([name, server]) =>
    toDeclaration(name, server, { source: 'config', origin: 'config', workspace, startTimeoutMs }),
  );
  const origin = join(workspace, PROJECT_SERVERS_FILE);
  for (const [name, server] of Object.entries(readProjectServers(workspace))) {
    if (Object.hasOwn(configured, name)) continue;
    declarations.push(
      toDeclaration(name, server, { source: 'project', origin, workspace, startTimeoutMs }),
    );
  }
  return declarations;
}
