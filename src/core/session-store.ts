/**
 * The folder of session files under `$LOOM_HOME/sessions`: create, open by id, and list with a
 * one-line summary each. Listing must never fail because one file is damaged: that file is
 * listed with its error. The store never deletes or rewrites a session.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonRedactor } from '../base/credential-redactor.js';
import { errorMessage, UserError } from '../base/errors.js';
import { compareText } from '../base/text-order.js';
import { sessionsDirectory } from './home.js';
import { isEvent, type SessionEvent } from './session-events.js';
import { loadSessionFile } from './session-load.js';
import {
  type CreateSessionOptions,
  SessionLog,
  type SessionLogOptions,
  validateSessionId,
} from './session-log.js';

export interface SessionSummary {
  id: string;
  /** ISO 8601; for an unreadable file, its modification time. */
  created: string;
  /** ISO 8601: when the session was last used (its last event; else when it was created). */
  lastUsed: string;
  /** The first user message, on one line, at most 80 characters; empty when there is none. */
  firstPrompt: string;
  /** How many turns started. */
  turns: number;
  parentSession: string | null;
  /** 0 for a session the user started; more for a subagent's (whose parent may be a workflow run). */
  delegationDepth: number;
  /** The real path of the session's workspace; absent when the header records none. */
  workspace?: string;
  /** Why the file could not be read; the other fields are then placeholders. */
  error?: string;
}

const SESSION_FILE_SUFFIX = '.jsonl';
const PROMPT_PREVIEW_LENGTH = 80;

export class SessionStore {
  readonly directory: string;
  private readonly credentials: () => JsonRedactor | undefined;

  /** `credentials` gives each log it creates or opens its redactor (unless the call names one). */
  constructor(home: string, credentials: () => JsonRedactor | undefined = () => undefined) {
    this.directory = sessionsDirectory(home);
    this.credentials = credentials;
  }

  create(options: Omit<CreateSessionOptions, 'directory'> = {}): SessionLog {
    return SessionLog.create({ ...this.redaction(), ...options, directory: this.directory });
  }

  private redaction(): SessionLogOptions {
    const credentials = this.credentials();
    return credentials === undefined ? {} : { credentials };
  }

  pathOf(id: string): string {
    return join(this.directory, `${validateSessionId(id)}${SESSION_FILE_SUFFIX}`);
  }

  /** Opens a session for appending (after repair); SESSION_NOT_FOUND names the id when absent. */
  open(id: string, options: SessionLogOptions = {}): SessionLog {
    const path = this.pathOf(id);
    if (!existsSync(path)) {
      throw new UserError('SESSION_NOT_FOUND', `no session ${id} in ${this.directory}`);
    }
    return SessionLog.open(path, { ...this.redaction(), ...options });
  }

  /** Every session file, oldest first. */
  list(): SessionSummary[] {
    if (!existsSync(this.directory)) return [];
    const summaries = readdirSync(this.directory)
      .filter((name) => name.endsWith(SESSION_FILE_SUFFIX))
      .map((name) => this.summarize(name.slice(0, -SESSION_FILE_SUFFIX.length)));
    return summaries.sort(
      (left, right) => compareText(left.created, right.created) || compareText(left.id, right.id),
    );
  }

  private summarize(id: string): SessionSummary {
    const path = join(this.directory, `${id}${SESSION_FILE_SUFFIX}`);
    try {
      const { header, events } = loadSessionFile(path);
      const firstMessage = events.find((event): event is SessionEvent<'user/message'> =>
        isEvent(event, 'user/message'),
      );
      return {
        id,
        created: header.created,
        lastUsed: lastUse(header.created, events),
        firstPrompt: firstMessage ? preview(firstMessage.data.text) : '',
        turns: events.filter((event) => event.type === 'turn/start').length,
        parentSession: header.parentSession,
        delegationDepth: header.delegationDepth,
        ...(header.cwd !== undefined ? { workspace: header.cwd } : {}),
      };
    } catch (error) {
      const modified = modificationTime(path);
      return {
        id,
        created: modified,
        lastUsed: modified,
        firstPrompt: '',
        turns: 0,
        parentSession: null,
        delegationDepth: 0,
        error: errorMessage(error),
      };
    }
  }
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= PROMPT_PREVIEW_LENGTH
    ? line
    : `${line.slice(0, PROMPT_PREVIEW_LENGTH - 1)}…`;
}

function lastUse(created: string, events: readonly SessionEvent[]): string {
  const last = events.at(-1)?.time;
  if (last === undefined || !Number.isFinite(last)) return created;
  const used = new Date(last).toISOString();
  return used > created ? used : created;
}

function modificationTime(path: string): string {
  try {
    return statSync(path).mtime.toISOString();
  } catch {
    return '';
  }
}
