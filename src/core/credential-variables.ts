/**
 * The environment variables that hold Loom's own credentials: a provider's key, a route's
 * `apiKeyEnv`, an MCP server's token. Anything that starts a process for the model (the `bash`
 * tool) leaves these out of its environment, and every name that looks like a credential too.
 * Layers register the names they read; each registration returns its undo. Never holds values.
 */
import { type Disposer, serviceKey } from './context.js';

/** Name endings that mark a variable as a credential, whoever uses it. */
export const credentialNameEndings: readonly string[] = ['_API_KEY', '_TOKEN', '_SECRET'];

export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return credentialNameEndings.some((ending) => upper.endsWith(ending));
}

export class CredentialVariables {
  private readonly registered: { names: ReadonlySet<string> }[] = [];

  /** Marks `names` as credentials until the returned undo runs. */
  add(names: Iterable<string>): Disposer {
    const entry = { names: new Set(names) };
    this.registered.push(entry);
    return () => {
      const index = this.registered.indexOf(entry);
      if (index >= 0) this.registered.splice(index, 1);
    };
  }

  /** Registered here, or named like a credential. */
  isCredential(name: string): boolean {
    return looksLikeCredential(name) || this.registered.some((entry) => entry.names.has(name));
  }
}

export const credentialVariablesKey = serviceKey<CredentialVariables>('core/credential-variables');
