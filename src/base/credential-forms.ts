/**
 * The forms in which one credential value can show up in text: as set and trimmed, URL-encoded,
 * JSON-escaped, and base64 of it or of `user:key` at any offset. A key (`secret`) is also matched
 * by any prefix or suffix of 8 or more characters (an error quoting `sk-abc…wxyz`); a URL
 * (`url`, a Redis URL) only whole, since its start and end are ordinary text, but its password
 * is a key; a `loose` value only whole. Pure; it never throws.
 */

/**
 * What a credential value is: a key, token or password (`secret`); a URL that may hold a password
 * (`url`); or the value of a variable only named like a credential (`loose`, such as `*_KEY`),
 * which may be a path or a word, so it is removed whole and encoded but never by its parts.
 */
export type CredentialKind = 'secret' | 'url' | 'loose';

export interface CredentialValue {
  value: string;
  kind: CredentialKind;
}

/** One literal to look for; `partial` ones match from 8 characters of their start or end. */
export interface CredentialForm {
  text: string;
  partial: boolean;
}

/** Shorter values are redacted only verbatim: their encodings would match ordinary text. */
export const minimumEncodedLength = 8;
/** The least part of a key (its first or last characters) that counts as the key. */
export const minimumPartLength = 8;

/** Every form of `credential`, longest first; a value that is only whitespace has none. */
export function formsOf(credential: CredentialValue): CredentialForm[] {
  const forms = new Map<string, boolean>();
  const add = (text: string, partial: boolean) => {
    if (text.length === 0) return;
    forms.set(text, (forms.get(text) ?? false) || (partial && text.length >= minimumPartLength));
  };
  const partial = credential.kind === 'secret';
  for (const base of new Set([credential.value, credential.value.trim()])) {
    if (base.trim().length === 0) continue;
    const trimmed = base === base.trim();
    add(base, partial && trimmed);
    if (base.length < minimumEncodedLength) continue;
    const percent = encodeURIComponent(base);
    add(percent, false);
    add(percent.replaceAll('%20', '+'), false);
    add(JSON.stringify(base).slice(1, -1), partial && trimmed);
    for (const core of base64Cores(base)) {
      add(core, false);
      add(core.replaceAll('+', '-').replaceAll('/', '_'), false);
    }
  }
  if (credential.kind === 'url') {
    for (const password of urlPasswords(credential.value.trim())) {
      for (const form of formsOf({ value: password, kind: 'secret' })) add(form.text, form.partial);
    }
  }
  return [...forms]
    .map(([text, isPartial]) => ({ text, partial: isPartial }))
    .sort((left, right) => right.text.length - left.text.length);
}

/** The password of a URL as written in it and decoded; none when it has none or is no URL. */
function urlPasswords(url: string): string[] {
  let written = '';
  try {
    written = new URL(url).password;
  } catch {
    return [];
  }
  if (written === '') return [];
  let decoded = written;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    // A malformed escape: the password as written is what a message would quote.
  }
  return [...new Set([written, decoded])];
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
