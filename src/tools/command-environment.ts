/**
 * The environment a model's shell command runs with: Loom's own, minus every credential (the
 * names registered in the scope's `CredentialVariables`, and any name ending in `_API_KEY`,
 * `_TOKEN` or `_SECRET`), except the names the user passes on purpose (config
 * `tools.bash.env.passthrough`). Must never hand a hidden variable's value to a command.
 */
import { type CredentialVariables, looksLikeCredential } from '../core/credential-variables.js';

export interface CommandEnvironmentRequest {
  /** The environment to start from; Loom's own by default. */
  base: NodeJS.ProcessEnv;
  /** The scope's registry; without one only the name endings hide a variable. */
  credentials: CredentialVariables | undefined;
  /** Names kept even though they are credentials. */
  passthrough: readonly string[];
}

export function commandEnvironment(request: CommandEnvironmentRequest): NodeJS.ProcessEnv {
  const kept = new Set(request.passthrough);
  const isCredential = (name: string) =>
    request.credentials ? request.credentials.isCredential(name) : looksLikeCredential(name);
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(request.base)) {
    if (value === undefined) continue;
    if (isCredential(name) && !kept.has(name)) continue;
    environment[name] = value;
  }
  return environment;
}
