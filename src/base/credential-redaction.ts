/**
 * Scrubs credentials from text a provider or an error produced, before it reaches a log, an event
 * or the terminal: each known value in every form (see `credential-redactor`), and whatever
 * stands in an `Authorization`, `x-api-key` or `?api_key=` position, even for a credential
 * nobody named. Pure; it never throws on strings.
 */

import { type CredentialValue, formsOf, minimumEncodedLength } from './credential-forms.js';
import { isCredentialVariable } from './credential-names.js';
import { redactedMarker, redactorFor } from './credential-redactor.js';

export { redactedMarker } from './credential-redactor.js';

/** A named variable's value shorter than this (trimmed) is not taken for a credential. */
export const minimumValueLength = 4;

const notRedacted = '(?!\\[redacted\\])';
const credentialPositions: ReadonlyArray<{ pattern: RegExp; replacement: string }> = [
  {
    // `Authorization: Bearer X`, `"authorization":"Basic X"`, `authorization='X'`
    pattern: new RegExp(
      `\\b((?:proxy-)?authorization)(["']?\\s*[:=]\\s*["']?)((?:bearer|basic|token|digest)\\s+)?(?!(?:bearer|basic|token|digest)\\s)${notRedacted}([^\\s"',;}\\]]+)`,
      'gi',
    ),
    replacement: `$1$2$3${redactedMarker}`,
  },
  {
    // `x-api-key: X`, `"api-key":"X"`, `x-goog-api-key=X`
    pattern: new RegExp(
      `\\b((?:x-goog-|x-)?api-key)(["']?\\s*[:=]\\s*["']?)${notRedacted}([^\\s"',;}\\]]+)`,
      'gi',
    ),
    replacement: `$1$2${redactedMarker}`,
  },
  {
    // A token after `Bearer`/`Basic` anywhere; it must look like one (a digit or a symbol).
    pattern: new RegExp(
      `\\b(bearer|basic)(\\s+)${notRedacted}(?=[A-Za-z]*[0-9]|[A-Za-z]*[._~+/=-][A-Za-z0-9])([A-Za-z0-9._~+/-]{8,}=*)`,
      'gi',
    ),
    replacement: `$1$2${redactedMarker}`,
  },
  {
    // `?api_key=X`, `&access_token=X` in a URL
    pattern: new RegExp(
      `([?&](?:api[_-]?key|key|access[_-]?token|token)=)${notRedacted}([^&\\s"'#]+)`,
      'gi',
    ),
    replacement: `$1${redactedMarker}`,
  },
];

/**
 * The values, as set, of `variables` (from 4 characters) and of every variable named like a
 * credential (`*_API_KEY`, `*_TOKEN`, ...; from 8 characters, so a flag like `X_TOKEN=1` is not one).
 */
export function credentialValues(
  env: NodeJS.ProcessEnv,
  variables: Iterable<string | undefined> = [],
): string[] {
  const values = new Set<string>();
  const add = (value: string | undefined, minimumLength: number) => {
    if (typeof value === 'string' && value.trim().length >= minimumLength) values.add(value);
  };
  for (const name of variables) if (name !== undefined) add(env[name], minimumValueLength);
  for (const [name, value] of Object.entries(env)) {
    if (isCredentialVariable(name)) add(value, minimumEncodedLength);
  }
  return [...values];
}

/** Every literal form of one key that `redactCredentials` removes, longest first. */
export function credentialForms(value: string): string[] {
  return formsOf({ value, kind: 'secret' }).map((form) => form.text);
}

/**
 * Replaces each credential position and each form of each value with `[redacted]`. `values` are
 * credentials as set (a string is a key); their trimmed forms and a key's parts are covered too.
 */
export function redactCredentials(
  text: string,
  values: ReadonlyArray<string | CredentialValue>,
): string {
  let result = text;
  for (const { pattern, replacement } of credentialPositions) {
    result = result.replace(pattern, replacement);
  }
  const credentials = values
    .filter((value) => typeof value === 'string' || typeof value?.value === 'string')
    .map((value) => (typeof value === 'string' ? { value, kind: 'secret' as const } : value));
  return redactorFor(credentials).redact(result);
}
