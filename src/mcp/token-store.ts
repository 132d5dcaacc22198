/**
 * What an OAuth login to one HTTP MCP server leaves behind: `$LOOM_HOME/mcp-auth/NAME-HASH.json`
 * (HASH of the server's name and url, so a changed url never reuses another server's tokens),
 * holding the dynamic registration's client information, the tokens (with when the access token
 * expires) and, during a login, the PKCE verifier. The folder is 0700 and each file 0600, replaced
 * in one step (a temporary and a rename) and never read or written through a symbolic link. Every
 * value it reads or writes is remembered in `storedSecretValues()`, so messages can be cleaned of
 * them; it never logs or prints one.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { errorMessage, UserError } from '../base/errors.js';
import {
  linkedFileError,
  NEW_FILE_FLAGS,
  refuseSymbolicLink,
  requireRealFolder,
  writeFully,
} from '../core/safe-write.js';

/** The folder under `$LOOM_HOME` that holds the login files. */
export const AUTH_FOLDER = 'mcp-auth';

/** One login file's content. */
export interface StoredLogin {
  version: 1;
  server: string;
  url: string;
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from the token response's `expires_in`. */
  expiresAt?: number;
  /** The PKCE verifier of a login in progress. */
  codeVerifier?: string;
  /** The `resource_metadata` URL the server's 401 named (RFC 9728), for discovery later. */
  resourceMetadataUrl?: string;
  /** The loopback port of the last login's redirect, tried first at the next login. */
  redirectPort?: number;
}

const secretValues = new Set<string>();

/** Every token, client secret and verifier this process has read or written. */
export function storedSecretValues(): string[] {
  return [...secretValues];
}

function remember(login: StoredLogin): void {
  const values = [
    login.tokens?.access_token,
    login.tokens?.refresh_token,
    login.tokens?.id_token,
    login.clientInformation?.client_secret,
    login.codeVerifier,
  ];
  for (const value of values)
    if (typeof value === 'string' && value.length >= 4) secretValues.add(value);
}

/** `NAME-HASH.json`: the name's safe characters (for a reader of the folder) and the hash of both. */
export function loginFileName(server: string, url: string): string {
  const hash = createHash('sha256').update(`${server}\n${url}`).digest('hex').slice(0, 16);
  const readable = server.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${readable}-${hash}.json`;
}

export class TokenStore {
  readonly server: string;
  readonly url: string;
  readonly folder: string;
  readonly path: string;

  constructor(home: string, server: string, url: string) {
    this.server = server;
    this.url = url;
    this.folder = join(home, AUTH_FOLDER);
    this.path = join(this.folder, loginFileName(server, url));
  }

  /** The stored login; undefined when there is none (or it belongs to another server or url). */
  read(): StoredLogin | undefined {
    let text: string;
    try {
      const descriptor = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        text = readFileSync(descriptor, 'utf8');
      } finally {
        closeSync(descriptor);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP' || code === 'EMLINK') throw linkedFileError(this.path);
      throw error;
    }
    let login: StoredLogin;
    try {
      login = JSON.parse(text) as StoredLogin;
    } catch (error) {
      throw new UserError(
        'INVALID_CONFIG',
        `${this.path} is not valid JSON (${errorMessage(error)}): run \`loom mcp logout ${this.server}\` and log in again`,
      );
    }
    if (login.server !== this.server || login.url !== this.url) return undefined;
    remember(login);
    return login;
  }

  /** Changes the stored login (made when absent) with `change`, and replaces the file. */
  update(change: (login: StoredLogin) => StoredLogin): StoredLogin {
    const current = this.read() ?? { version: 1, server: this.server, url: this.url };
    const next = change({ ...current });
    remember(next);
    this.write(next);
    return next;
  }

  private write(login: StoredLogin): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    requireRealFolder(this.folder);
    if ((lstatSync(this.folder).mode & 0o077) !== 0) chmodSync(this.folder, 0o700);
    refuseSymbolicLink(this.path);
    const temporary = `${this.path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    const descriptor = openSync(temporary, NEW_FILE_FLAGS, 0o600);
    try {
      fchmodSync(descriptor, 0o600);
      writeFully(descriptor, Buffer.from(`${JSON.stringify(login, null, 2)}\n`));
    } catch (error) {
      closeSync(descriptor);
      unlinkSync(temporary);
      throw error;
    }
    closeSync(descriptor);
    try {
      refuseSymbolicLink(this.path);
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }
}

/**
 * Every login file of `server` (whatever its url, an old one too) with what it holds. A file
 * that cannot be read as a login is left out.
 */
export function storedLogins(
  home: string,
  server: string,
): Array<{ path: string; login: Partial<StoredLogin> }> {
  const folder = join(home, AUTH_FOLDER);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const logins: Array<{ path: string; login: Partial<StoredLogin> }> = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const path = join(folder, name);
    let login: Partial<StoredLogin>;
    try {
      const descriptor = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        login = JSON.parse(readFileSync(descriptor, 'utf8')) as Partial<StoredLogin>;
      } finally {
        closeSync(descriptor);
      }
    } catch {
      continue;
    }
    if (login.server !== server) continue;
    remember(login as StoredLogin);
    logins.push({ path, login });
  }
  return logins;
}

/** Removes one login file (a path `storedLogins` gave). */
export function removeStoredLogin(path: string): void {
  rmSync(path, { force: true });
}

/** Removes every login file of `server` (whatever its url); returns how many. */
export function forgetServer(home: string, server: string): number {
  const logins = storedLogins(home, server);
  for (const { path } of logins) removeStoredLogin(path);
  return logins.length;
}
