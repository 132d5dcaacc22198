/**
 * What a connected server offers besides tools, as `loom mcp list` shows it: its resources,
 * resource templates and prompts (with their arguments). A list the server does not declare is
 * absent; one that fails is reported by its message. Never throws.
 */
import { errorMessage } from '../base/errors.js';
import type { ServerConnection } from './server-connection.js';

export interface PromptArgument {
  name: string;
  required?: boolean;
  description?: string;
}

export interface ListedPrompt {
  name: string;
  description?: string;
  arguments: PromptArgument[];
}

export interface ServerCatalog {
  resources?: Array<{ uri: string; name: string; mimeType?: string }>;
  resourceTemplates?: Array<{ uriTemplate: string; name: string }>;
  prompts?: ListedPrompt[];
  /** A list that could not be read, by its method. */
  problems?: Array<{ method: string; message: string }>;
}

export async function serverCatalog(connection: ServerConnection): Promise<ServerCatalog> {
  const catalog: ServerCatalog = {};
  const problems: Array<{ method: string; message: string }> = [];
  const attempt = async (method: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      problems.push({ method, message: errorMessage(error) });
    }
  };
  await Promise.all([
    connection.offersResources
      ? attempt('resources/list', async () => {
          catalog.resources = (await connection.listResources()).map((resource) => ({
            uri: resource.uri,
            name: resource.name,
            ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
          }));
        })
      : undefined,
    connection.offersResources
      ? attempt('resources/templates/list', async () => {
          catalog.resourceTemplates = (await connection.listResourceTemplates()).map(
            (template) => ({ uriTemplate: template.uriTemplate, name: template.name }),
          );
        })
      : undefined,
    connection.offersPrompts
      ? attempt('prompts/list', async () => {
          catalog.prompts = (await connection.listPrompts()).map(listedPrompt);
        })
      : undefined,
  ]);
  if (problems.length > 0) catalog.problems = problems;
  return catalog;
}

export function listedPrompt(prompt: {
  name: string;
  description?: string | undefined;
  arguments?:
    | Array<{ name: string; required?: boolean | undefined; description?: string | undefined }>
    | undefined;
}): ListedPrompt {
  return {
    name: prompt.name,
    ...(prompt.description ? { description: prompt.description } : {}),
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.required ? { required: true } : {}),
      ...(argument.description ? { description: argument.description } : {}),
    })),
  };
}
