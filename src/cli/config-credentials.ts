/**
 * The credential registry of one configuration: every variable config names as holding a secret
 * (each provider's key and each route's `apiKeyEnv`, each `${VAR}` of an MCP server, each queue
 * provider's `redis.urlEnv`, `web.search.apiKeyEnv`). A new credential-bearing field registers
 * here, so `bash` never sees it and no text Loom writes holds its value. Reads names only; never
 * prints a value.
 */
import type { LoomConfig } from '../config/schema.js';
import { CredentialVariables } from '../core/credential-variables.js';
import { defaultKeyVariables } from '../llm/providers.js';
import type { McpServerDeclaration } from '../mcp/contract.js';
import { declarationVariables } from '../mcp/expand-variables.js';

export function configCredentials(
  config: LoomConfig,
  servers: readonly McpServerDeclaration[],
  environment: NodeJS.ProcessEnv = process.env,
): CredentialVariables {
  const credentials = new CredentialVariables(environment);
  credentials.add(routeKeyVariables(config));
  credentials.add(servers.flatMap(declarationVariables));
  credentials.add(queueUrlVariables(config), 'url');
  const searchKey = config.web?.search?.apiKeyEnv;
  if (searchKey !== undefined) credentials.add([searchKey]);
  return credentials;
}

/** The key variables of every provider and configured route. */
function routeKeyVariables(config: LoomConfig): string[] {
  const names = Object.values(defaultKeyVariables).filter((name) => name !== undefined);
  for (const route of Object.values(config.models ?? {})) {
    if (route.apiKeyEnv !== undefined) names.push(route.apiKeyEnv);
  }
  return names;
}

/** The Redis URL variables of every queue provider. */
function queueUrlVariables(config: LoomConfig): string[] {
  return Object.values(config.subagents?.providers ?? {}).flatMap((provider) =>
    provider.type === 'queue' ? [provider.redis.urlEnv] : [],
  );
}
