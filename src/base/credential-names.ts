/**
 * Which environment variable names mark a credential whoever uses them: `*_API_KEY`, `*_TOKEN`,
 * `*_SECRET` are hidden from commands and redacted; `*_KEY` and `*_PASSWORD` are redacted too
 * (redacting too much is harmless; hiding a variable a command needs is not). Names only.
 */

/** Name endings that mark a variable as a credential, whoever uses it. */
export const credentialNameEndings: readonly string[] = ['_API_KEY', '_TOKEN', '_SECRET'];

export function looksLikeCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return credentialNameEndings.some((ending) => upper.endsWith(ending));
}

const looserCredentialEnding = /(?:_KEY|_PASSWORD)$/i;

/** Names whose values are redacted: those of `looksLikeCredential`, and `*_KEY`, `*_PASSWORD`. */
export function isCredentialVariable(name: string): boolean {
  return looksLikeCredential(name) || looserCredentialEnding.test(name);
}
