/**
 * Scrubs credentials from text a provider or an error produced, before it reaches a log, an event
 * or the terminal: each known value as set and as sent (trimmed), in the encodings an echo uses
 * (base64 of the key or of `user:key` at any offset, URL and JSON escaping), and whatever stands
 * in an `Authorization`, `x-api-key` or `?api_key=` position. Pure; it never throws on strings.
 */

import { looksLikeCredential } from '../core/credential-variables.js';

export const redactedMarker = '[redacted]';

/** Shorter values are redacted only verbatim: their encodings would match ordinary text. */
const minimumEncodedLength = 8;

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
 * Names whose values are redacted: every name core treats as a credential, and more loosely
 * `*_KEY` and `*_PASSWORD` (redacting too much is harmless; hiding from commands is not).
 */
const looserCredentialEnding = /(?:_KEY|_PASSWORD)$/i;

export function isCredentialVariable(name: string): boolean {
  return looksLikeCredential(name) || looserCredentialEnding.test(name);
}

/**
 * The values, as set, of `variables` (any length) and of every variable named like a credential
 * (`*_API_KEY`, `*_TOKEN`, ...; at least 8 characters, so a flag like `X_TOKEN=1` is not one).
 */
export function credentialValues(
  env: NodeJS.ProcessEnv,
  variables: Iterable<string | undefined> = [],
): string[] {
  const values = new Set<string>();
  const add = (value: string | undefined, minimumLength: number) => {
    if (typeof value === 'string' && value.trim().length >= minimumLength) values.add(value);
  };
  for (const name of variables) if (name !== undefined) add(env[name], 1);
  for (const [name, value] of Object.entries(env)) {
    if (isCredentialVariable(name)) add(value, minimumEncodedLength);
  }
  return [...values];
}

/** Every form of one credential value that `redactCredentials` removes, longest first. */
export function credentialForms(value: string): string[] {
  const forms = new Set<string>();
  for (const base of new Set([value, value.trim()])) {
    if (base.length === 0) continue;
    forms.add(base);
    if (base.length < minimumEncodedLength) continue;
    const percent = encodeURIComponent(base);
    forms.add(percent);
    forms.add(percent.replaceAll('%20', '+'));
    forms.add(JSON.stringify(base).slice(1, -1));
    for (const core of base64Cores(base)) {
      forms.add(core);
      forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  return [...forms].sort((left, right) => right.length - left.length);
}

/**
 * Replaces each credential position and each form of each value with `[redacted]`. `values` are
 * credentials as set; their trimmed forms are covered too.
 */
export function redactCredentials(text: string, values: readonly string[]): string {
  let result = text;
  for (const { pattern, replacement } of credentialPositions) {
    result = result.replace(pattern, replacement);
  }
  const forms = values
    .filter((value): value is string => typeof value === 'string')
    .flatMap(credentialForms)
    .sort((left, right) => right.length - left.length);
  for (const form of forms) result = result.split(form).join(redactedMarker);
  return result;
}

/**
 * The base64 characters that encode only the value's bytes, for each of the three offsets the
 * value can have in the encoded text (base64 of `user:key` puts the key at any offset). The one
 * or two characters at each end that mix in neighbouring bytes are left out.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const firstBit = offset * 8;
    const endBit = (offset + bytes.length) * 8;
    const core = encoded.slice(Math.ceil(firstBit / 6), Math.floor(endBit / 6));
    if (core.length >= minimumEncodedLength) cores.push(core);
  }
  return cores;
}
