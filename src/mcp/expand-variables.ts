/**
 * Reads `${NAME}` and `${NAME:-default}` references in a server's declaration (config or
 * `.mcp.json`) from an environment (Loom's own, as `.mcp.json` files expect). A missing variable without a default is a problem
 * naming the variable, never a silent empty string; the values read are returned so that every
 * message about the server can be cleaned of them. Never logs or prints a value.
 */
import type { McpServerDeclaration } from './contract.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Expansion<Value> {
  value: Value;
  /** Variables referenced and not set (and without a default). */
  missing: string[];
  /** The values the references were replaced with: secrets, as far as messages are concerned. */
  secrets: string[];
}

/** Names of the variables `text` refers to. */
export function referencedVariables(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1] as string);
}

/** Every variable a declaration refers to (for keeping them out of `bash` commands). */
export function declarationVariables(server: McpServerDeclaration): string[] {
  const texts =
    server.transport === 'stdio'
      ? [server.command, ...server.args, ...Object.values(server.env), server.cwd ?? '']
      : server.transport === 'invalid'
        ? []
        : [server.url, ...Object.values(server.headers)];
  return [...new Set(texts.flatMap(referencedVariables))];
}

/**
 * A client's server (ACP) holds literal values, which are not expanded; its header and
 * environment values still count as secrets.
 */
export function expandVariables(
  server: McpServerDeclaration,
  environment: NodeJS.ProcessEnv,
): Expansion<McpServerDeclaration> {
  if (server.transport === 'invalid') return { value: server, missing: [], secrets: [] };
  if (server.source === 'client') {
    const values = server.transport === 'stdio' ? server.env : server.headers;
    const secrets = Object.values(values).filter((text) => text.length >= 4);
    return { value: server, missing: [], secrets };
  }
  const missing = new Set<string>();
  const secrets = new Set<string>();
  const expand = (text: string) =>
    text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
      const value = environment[name];
      if (value !== undefined && value !== '') {
        secrets.add(value);
        return value;
      }
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return '';
    });
  const expandAll = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).map(([key, text]) => [key, expand(text)]));
  const value: McpServerDeclaration =
    server.transport === 'stdio'
      ? {
          ...server,
          command: expand(server.command),
          args: server.args.map(expand),
          env: expandAll(server.env),
          ...(server.cwd !== undefined ? { cwd: expand(server.cwd) } : {}),
        }
      : { ...server, url: expand(server.url), headers: expandAll(server.headers) };
  return { value, missing: [...missing], secrets: [...secrets].filter((text) => text.length >= 4) };
}
