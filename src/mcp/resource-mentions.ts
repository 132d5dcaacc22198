/**
 * Resources a prompt points at, attached to its user message: an ACP `resource_link` whose URI
 * a connected server serves (listed by `resources/list`, or matching one of its URI templates),
 * and an `@server:uri` mention naming a connected server with resources. Each is read
 * (`resources/read`) and attached as its text (bounded like a tool result; blobs described); a
 * read that fails is attached as the error, so the model knows. A URI no server serves is left
 * as it is. Never throws.
 */
import { errorMessage } from '../base/errors.js';
import type { Context } from '../core/context.js';
import { agentServers } from './agent-servers.js';
import { listedChoicesOf, type ResourceChoice, refreshChoices } from './catalog-changes.js';
import { DEFAULT_OUTPUT_LIMIT } from './contract.js';
import { resourceText } from './resource-tool.js';
import type { ServerConnection } from './server-connection.js';

/** `@server:uri` in a prompt: the server name, then a URI up to the next white space. */
const MENTION = /(?:^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;

export interface ResourceMention {
  server: string;
  uri: string;
}

/** The `@server:uri` mentions of `text` (whatever servers exist). */
export function resourceMentions(text: string): ResourceMention[] {
  return [...text.matchAll(MENTION)].map((match) => ({
    server: match[1] as string,
    uri: (match[2] as string).replace(/[.,;:!?)]+$/, ''),
  }));
}

/** Whether `uri` fits `template` (RFC 6570 level 1: each `{name}` one path segment or more). */
export function matchesTemplate(template: string, uri: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`).test(uri);
}

/** The connected server that serves `uri`, if any does. */
async function ownerOf(
  servers: readonly ServerConnection[],
  uri: string,
): Promise<ServerConnection | undefined> {
  for (const connection of servers) {
    const [resources, templates] = await Promise.all([
      connection.listResources().catch(() => []),
      connection.listResourceTemplates().catch(() => []),
    ]);
    if (resources.some((resource) => resource.uri === uri)) return connection;
    if (templates.some((template) => matchesTemplate(template.uriTemplate, uri))) {
      return connection;
    }
  }
  return undefined;
}

/**
 * The text to attach for `links` (resource link URIs) and the `@server:uri` mentions of `text`,
 * or '' when none names a resource of a connected server.
 */
export async function attachedResources(
  context: Context,
  text: string,
  links: readonly string[],
): Promise<string> {
  const reachable = agentServers(context);
  const servers = (reachable?.list() ?? []).filter((connection) => connection.offersResources);
  if (servers.length === 0) return '';
  const limit = reachable?.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  const wanted: Array<{ connection: ServerConnection; uri: string }> = [];
  for (const mention of resourceMentions(text)) {
    const connection = servers.find((server) => server.name === mention.server);
    if (connection) wanted.push({ connection, uri: mention.uri });
  }
  for (const uri of links) {
    const connection = await ownerOf(servers, uri);
    if (connection) wanted.push({ connection, uri });
  }
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const { connection, uri } of wanted) {
    const key = `${connection.name} ${uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      const result = await connection.readResource(uri);
      parts.push(
        `Attached resource ${uri} (MCP server ${connection.name}):\n${resourceText(result, limit)}`,
      );
    } catch (error) {
      parts.push(
        `Attached resource ${uri} (MCP server ${connection.name}) could not be read: ${errorMessage(error)}`,
      );
    }
  }
  return parts.join('\n\n');
}

/** Whether `text` mentions (`@server:uri`) a connected server that has resources. */
export function mentionsServerResource(context: Context, text: string): boolean {
  const servers = (agentServers(context)?.list() ?? []).filter(
    (connection) => connection.offersResources,
  );
  return resourceMentions(text).some((mention) =>
    servers.some((connection) => connection.name === mention.server),
  );
}

/** `text` with its `@server:uri` mentions' resources attached after it. Never throws. */
export async function withMentionedResources(context: Context, text: string): Promise<string> {
  const attached = await attachedResources(context, text, []);
  return attached === '' ? text : `${text}\n\n${attached}`;
}

export type { ResourceChoice } from './catalog-changes.js';

/** Lists the resources and templates of the agent's servers again (for completion). Never throws. */
export async function refreshResourceChoices(context: Context): Promise<ResourceChoice[]> {
  const servers = agentServers(context)?.list() ?? [];
  await Promise.all(servers.map((connection) => refreshChoices(connection)));
  return cachedResourceChoices(context);
}

/** The choices as last listed (catalog-changes.ts); synchronous. */
export function cachedResourceChoices(context: Context): ResourceChoice[] {
  return (agentServers(context)?.list() ?? []).flatMap((connection) => listedChoicesOf(connection));
}
