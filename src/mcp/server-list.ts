/**
 * The MCP servers a workspace declares: `mcp.servers` of the merged config and the project's
 * `.mcp.json` (`{"mcpServers": {...}}`, the format Claude Code and other tools share). A name in
 * both is config's (config.yaml is Loom's own word). Each entry is checked on its own: one Loom
 * cannot use (a bad name, an unknown `type`, a bad field) becomes an `invalid` declaration that
 * fails to start with the file and field named, and the others run. A `.mcp.json` that is not
 * JSON (or not `{"mcpServers": {...}}`) is a UserError; a missing one is no servers. Also the
 * settings every connection shares (roots, call limits). Reads files only; never starts a server.
 */
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ZodError } from 'zod';
import { errorMessage, UserError } from '../base/errors.js';
import {
  configSchemas,
  type LoomConfig,
  MCP_SERVER_NAME,
  type McpServerConfig,
} from '../config/schema.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_CALL_MS,
  DEFAULT_START_TIMEOUT_MS,
  type McpClientSettings,
  type McpRoot,
  type McpServerDeclaration,
  type McpServerSource,
} from './contract.js';

export const PROJECT_SERVERS_FILE = '.mcp.json';

/**
 * The entries of `.mcp.json` in `workspace`, each still unchecked (see `checkedEntry`); `{}`
 * when there is no such file or it is empty.
 */
export function readProjectServers(workspace: string): Record<string, unknown> {
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
  throw new UserError(
    'INVALID_CONFIG',
    `invalid MCP servers file:\n${issueLines(parsed.error, file).join('\n')}`,
  );
}

/** One line per issue: `WHERE: FIELD: what is wrong`. */
function issueLines(error: ZodError, where: string, prefix: readonly string[] = []): string[] {
  return error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [
      ...prefix,
      ...issue.path.map(String),
      ...(keys.length === 1 ? [String(keys[0])] : []),
    ];
    const field = path.length > 0 ? path.join('.') : '(top level)';
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field ${keys.join(', ')}`
        : issue.code === 'invalid_key'
          ? (issue.issues[0]?.message ?? issue.message)
          : issue.message;
    return `${where}: ${field}: ${message}`;
  });
}

/**
 * One entry checked against the server schema: its settings, or what is wrong with it (naming
 * `where`, the file, and the field under `field`, such as `mcpServers.NAME`).
 */
export function checkedEntry(
  name: string,
  entry: unknown,
  where: string,
  field: readonly string[],
): { kind: 'server'; server: McpServerConfig } | { kind: 'problem'; problem: string } {
  if (!MCP_SERVER_NAME.test(name)) {
    return {
      kind: 'problem',
      problem: `${where}: ${field.join('.')}: server names are letters, digits, "-" and single "_" (no "__", which separates mcp__SERVER__TOOL); rename it`,
    };
  }
  const parsed = configSchemas().mcpServerSchema.safeParse(entry);
  if (parsed.success) return { kind: 'server', server: parsed.data };
  return { kind: 'problem', problem: issueLines(parsed.error, where, field).join('; ') };
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
    ...(server.sampling !== undefined ? { sampling: server.sampling } : {}),
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
  return {
    ...common,
    transport: server.type === 'sse' ? 'sse' : 'http',
    url: server.url ?? '',
    headers: server.headers ?? {},
  };
}

function declarationOf(
  name: string,
  entry: unknown,
  where: { source: McpServerSource; origin: string; workspace: string; startTimeoutMs: number },
  field: readonly string[],
): McpServerDeclaration {
  const checked = checkedEntry(name, entry, where.origin, field);
  if (checked.kind === 'server') return toDeclaration(name, checked.server, where);
  return {
    transport: 'invalid',
    name,
    source: where.source,
    origin: where.origin,
    problem: checked.problem,
    startTimeoutMs: where.startTimeoutMs,
  };
}

/** Every server `config` and the workspace's `.mcp.json` declare, config's first. */
export function declaredServers(config: LoomConfig, workspace: string): McpServerDeclaration[] {
  const startTimeoutMs = config.mcp?.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const configured = config.mcp?.servers ?? {};
  const declarations = Object.entries(configured).map(([name, entry]) =>
    declarationOf(name, entry, { source: 'config', origin: 'config', workspace, startTimeoutMs }, [
      'mcp',
      'servers',
      name,
    ]),
  );
  const origin = join(workspace, PROJECT_SERVERS_FILE);
  for (const [name, entry] of Object.entries(readProjectServers(workspace))) {
    if (Object.hasOwn(configured, name)) continue;
    declarations.push(
      declarationOf(name, entry, { source: 'project', origin, workspace, startTimeoutMs }, [
        'mcpServers',
        name,
      ]),
    );
  }
  return declarations;
}

/** A folder as a root: its `file://` URI and its name (the folder's own name). */
export function folderRoot(folder: string): McpRoot {
  return { uri: pathToFileURL(folder).href, name: basename(folder) || folder };
}

/**
 * What every connection of a workspace shares: the workspace and `mcp.roots` (relative ones
 * resolved against the workspace; a repeat is offered once) and the call limits.
 */
export function clientSettings(config: LoomConfig, workspace: string): McpClientSettings {
  const folders = [workspace, ...(config.mcp?.roots ?? [])].map((folder) =>
    isAbsolute(folder) ? resolve(folder) : resolve(workspace, folder),
  );
  return {
    roots: [...new Set(folders)].map(folderRoot),
    callTimeoutMs: config.mcp?.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    maxCallMs: config.mcp?.maxCallMs ?? DEFAULT_MAX_CALL_MS,
  };
}
