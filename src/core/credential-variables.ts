/**
 * The one registry of the environment variables that hold credentials: a provider's key, a
 * route's `apiKeyEnv`, an MCP server's `${VAR}`, a queue's `redis.urlEnv`. Anything that starts a
 * process for the model (the `bash` tool) leaves these out of its environment, and every name
 * that looks like a credential too; every text Loom writes passes `redact`, which removes their
 * values (and those of credential-like names) in every form. Layers register the names they
 * read; each registration returns its undo. The matcher is rebuilt only when the names change.
 */

import type { CredentialKind, CredentialValue } from '../base/credential-forms.js';
import { minimumEncodedLength } from '../base/credential-forms.js';
import { isCredentialVariable, looksLikeCredential } from '../base/credential-names.js';
import { minimumValueLength } from '../base/credential-redaction.js';
import { CredentialRedactor, type JsonRedactor } from '../base/credential-redactor.js';
import type { Disposer } from './context.js';
import { serviceKey } from './context.js';

export type { CredentialKind } from '../base/credential-forms.js';
export { credentialNameEndings, looksLikeCredential } from '../base/credential-names.js';

export class CredentialVariables implements JsonRedactor {
  private readonly registered: { names: ReadonlySet<string>; kind: CredentialKind }[] = [];
  private readonly environment: NodeJS.ProcessEnv;
  private redactor: CredentialRedactor | undefined;
  private readonly valueSources: Array<() => readonly string[]> = [];
  /** How many values the sources gave when the matcher was built: more rebuild it. */
  private sourcedCount = 0;

  /** Values are read from `environment` (default Loom's own) when the names change. */
  constructor(environment: NodeJS.ProcessEnv = process.env) {
    this.environment = environment;
  }

  /** Marks `names` as credentials (a `url` may hold a password) until the returned undo runs. */
  add(names: Iterable<string>, kind: CredentialKind = 'secret'): Disposer {
    const entry = { names: new Set(names), kind };
    this.registered.push(entry);
    this.redactor = undefined;
    return () => {
      const index = this.registered.indexOf(entry);
      if (index >= 0) this.registered.splice(index, 1);
      this.redactor = undefined;
    };
  }

  /**
   * Credentials that live in no variable (an MCP server's OAuth tokens): `source` is asked for
   * them at each redaction and must only grow; until the returned undo runs. Must not throw.
   */
  addValues(source: () => readonly string[]): Disposer {
    this.valueSources.push(source);
    this.redactor = undefined;
    return () => {
      const index = this.valueSources.indexOf(source);
      if (index >= 0) this.valueSources.splice(index, 1);
      this.redactor = undefined;
    };
  }

  /** Registered here, or named like a credential. */
  isCredential(name: string): boolean {
    return looksLikeCredential(name) || this.registered.some((entry) => entry.names.has(name));
  }

  /**
   * The registered variables' values (from 4 characters) and those of credential-like names
   * (`*_API_KEY`, `*_TOKEN`, `*_SECRET`; `*_KEY`, `*_PASSWORD` as `loose`; from 8 characters).
   */
  values(): CredentialValue[] {
    const values = new Map<string, CredentialKind>();
    const add = (value: string | undefined, kind: CredentialKind, minimumLength: number) => {
      if (typeof value !== 'string' || value.trim().length < minimumLength) return;
      if (!values.has(value)) values.set(value, kind);
    };
    for (const entry of this.registered) {
      for (const name of entry.names) add(this.environment[name], entry.kind, minimumValueLength);
    }
    for (const source of this.valueSources) {
      for (const value of source()) add(value, 'secret', minimumValueLength);
    }
    for (const [name, value] of Object.entries(this.environment)) {
      if (looksLikeCredential(name)) add(value, 'secret', minimumEncodedLength);
      else if (isCredentialVariable(name)) add(value, 'loose', minimumEncodedLength);
    }
    return [...values].map(([value, kind]) => ({ value, kind }));
  }

  /** `text` without any credential value in any form. Never throws. */
  redact(text: string): string {
    return this.matcher().redact(text);
  }

  /** `json` without any credential value, still valid JSON. Never throws on valid JSON. */
  redactJson(json: string): string {
    return this.matcher().redactJson(json);
  }

  private matcher(): CredentialRedactor {
    if (this.valueSources.length > 0) {
      const count = this.valueSources.reduce((total, source) => total + source().length, 0);
      if (count !== this.sourcedCount) {
        this.sourcedCount = count;
        this.redactor = undefined;
      }
    }
    this.redactor ??= new CredentialRedactor(this.values());
    return this.redactor;
  }
}

export const credentialVariablesKey = serviceKey<CredentialVariables>('core/credential-variables');
