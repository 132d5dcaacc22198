/**
 * Checks that no text Loom wrote holds a credential in any form a leak takes: as set, trimmed,
 * after `Bearer`, base64 of it or of `user:key`, URL-encoded, JSON-escaped, its first 14 or last
 * 8 characters, or hidden in a base64 or percent-encoded run. A URL credential is checked whole
 * and its password in every form. Reads what it is given; never prints a value.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { echoedForms, quotedParts } from './key-echo-server.js';

export interface WatchedCredential {
  /** Names it in a failed assertion (never the value). */
  label: string;
  asSet: string;
  /** `url`: the value is a URL whose password is the key. Default `secret`. */
  kind?: 'secret' | 'url';
}

export function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());
}

/** Every file under `home`, by path. */
export function homeOutputs(home: string): Record<string, string> {
  return Object.fromEntries(filesUnder(home).map((path) => [path, readFileSync(path, 'utf8')]));
}

/** Every form of a key a leak takes, the value as set first. */
export function keyForms(asSet: string): string[] {
  const key = asSet.trim();
  return [asSet, ...echoedForms(key), JSON.stringify(key).slice(1, -1), ...quotedParts(key)];
}

/** The key of a credential (a URL's password) and the forms to look for. */
function watched(credential: WatchedCredential): { key: string; forms: string[] } {
  if (credential.kind !== 'url') {
    return { key: credential.asSet.trim(), forms: keyForms(credential.asSet) };
  }
  const url = credential.asSet.trim();
  const password = decodeURIComponent(new URL(url).password);
  return {
    key: password,
    forms: [credential.asSet, url, encodeURIComponent(url), ...keyForms(password)],
  };
}

/** Base64 (either alphabet) runs of the text, decoded, for a key hidden in an encoding we missed. */
function decodedBase64Runs(text: string): string[] {
  return [...text.matchAll(/[A-Za-z0-9+/_-]{12,}={0,2}/g)].map((match) =>
    Buffer.from(match[0], 'base64').toString('latin1'),
  );
}

function decodedPercentRuns(text: string): string[] {
  return [...text.matchAll(/[^\s"'<>]*%[0-9A-Fa-f]{2}[^\s"'<>]*/g)].flatMap((match) => {
    try {
      return [decodeURIComponent(match[0])];
    } catch {
      return [];
    }
  });
}

export function assertNoCredential(
  outputs: Record<string, string>,
  credentials: readonly WatchedCredential[],
): void {
  for (const credential of credentials) {
    const { key, forms } = watched(credential);
    for (const [where, text] of Object.entries(outputs)) {
      forms.forEach((form, index) => {
        assert.ok(!text.includes(form), `${where} holds ${credential.label} (form #${index})`);
      });
      for (const decoded of [...decodedBase64Runs(text), ...decodedPercentRuns(text)]) {
        assert.ok(!decoded.includes(key), `${where} holds ${credential.label} in an encoding`);
      }
    }
  }
}
