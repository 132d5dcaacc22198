/**
 * `read_mcp_resource {server, uri}`: reads one resource of a connected MCP server
 * (`resources/read`). Text contents reach the model as text with their address, MIME type and
 * size; blobs are described by MIME type and size, never their bytes; the whole is capped like
 * a tool result (result-text.ts). A server Loom does not know, one without resources, or a URI
 * the server refuses is an error result naming the servers that have resources and what they
 * list.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../base/errors.js';
import type { ToolDefinition, ToolOutput } from '../core/tool-contract.js';
import { READ_MCP_RESOURCE } from './contract.js';
import { resultText } from './result-text.js';
import type { ServerConnection } from './server-connection.js';

/** How many URIs an error lists before it says how many more there are. */
const LISTED = 10;

export interface ResourceServers {
  list(): ServerConnection[];
  find(name: string): ServerConnection | undefined;
}

/** The text the model reads for what `resources/read` answered, capped at `outputLimit`. */
export function resourceText(result: ReadResourceResult, outputLimit: number): string {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length === 0) return '(the resource has no contents)';
  const output = resultText(
    { content: contents.map((resource) => ({ type: 'resource' as const, resource })) },
    outputLimit,
  );
  return typeof output === 'string' ? output : output.content;
}

/** Some of what `connection` lists (URIs and templates), for an error that names them. */
async function listedUris(connection: ServerConnection, signal?: AbortSignal): Promise<string> {
  try {
    const [resources, templates] = await Promise.all([
      connection.listResources(signal),
      connection.listResourceTemplates(signal).catch(() => []),
    ]);
    const uris = [
      ...resources.map((resource) => resource.uri),
      ...templates.map((template) => `${template.uriTemplate} (template)`),
    ];
    if (uris.length === 0) return `${connection.name} lists no resources`;
    const more = uris.length > LISTED ? `, and ${uris.length - LISTED} more` : '';
    return `${connection.name} lists ${uris.slice(0, LISTED).join(', ')}${more}`;
  } catch (error) {
    return `listing ${connection.name}'s resources failed: ${errorMessage(error)}`;
  }
}

function withResources(servers: ResourceServers): string {
  const names = servers
    .list()
    .filter((connection) => connection.offersResources)
    .map((connection) => connection.name);
  return names.length === 0
    ? 'no connected MCP server has resources'
    : `MCP servers with resources: ${names.join(', ')} (\`loom mcp list\` shows their resources)`;
}

export function readResourceTool(servers: ResourceServers, outputLimit: number): ToolDefinition {
  return {
    name: READ_MCP_RESOURCE,
    description:
      'Read a resource of a connected MCP server by its URI (as listed by the server, or filled in from one of its URI templates). Text comes back as text; binary contents are described by MIME type and size.',
    parameters: {
      type: 'object',
      properties: {
        server: { type: 'string', description: 'The MCP server name' },
        uri: { type: 'string', description: "The resource's URI" },
      },
      required: ['server', 'uri'],
      additionalProperties: false,
    },
    concurrencySafe: true,
    execute: async (args: { server: string; uri: string }, execution): Promise<ToolOutput> => {
      const connection = servers.find(args.server);
      if (!connection) {
        return {
          content: `no connected MCP server is named ${args.server}; ${withResources(servers)}`,
          isError: true,
        };
      }
      if (!connection.offersResources) {
        return {
          content: `MCP server ${args.server} has no resources (it does not declare the resources capability); ${withResources(servers)}`,
          isError: true,
        };
      }
      try {
        const result = await connection.readResource(args.uri, execution.signal);
        return resourceText(result, outputLimit);
      } catch (error) {
        if (execution.signal.aborted) throw error;
        return {
          content: `${errorMessage(error)}; ${await listedUris(connection, execution.signal)}`,
          isError: true,
        };
      }
    },
  };
}
