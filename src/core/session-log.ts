/**
 * The session log: the append-only JSONL file that is the source of truth of one agent session.
 * Appends are numbered, kept in memory, shown to observers at once and written in batches; a
 * `flush()` puts them on disk before it returns, `written()` without blocking the thread on a
 * file that is slow to create. One process writes a session at a time (see
 * `session-lock`). It must never rewrite history: the only bytes it ever removes are a torn last
 * line that never formed an event, or a header that a crash cut off before it was complete.
 */
import { randomInt } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, statSync, writeSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { JsonRedactor } from '../base/credential-redactor.js';
import { errorMessage, LoomError, UserError } from '../base/errors.js';
import {
  createCompleteFileForAppending,
  createCompleteFileForAppendingInBackground,
  replaceWithCompleteFile,
} from './complete-file.js';
import type { Disposer } from './context.js';
import { type FileCreationPace, sharedFileCreationPace } from './file-creation-pace.js';
import { openForAppending, refuseSymbolicLink, writeFully } from './safe-write.js';
import {
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionEventMap,
  type SessionEventType,
  type SessionHeader,
} from './session-events.js';
import { closingEvents, isHeaderless, loadSessionFile } from './session-load.js';
import { acquireSessionLock, type SessionLock } from './session-lock.js';
import { realFolder } from './workspace-folder.js';

/** Pending lines beyond this many characters are written at once instead of on the next tick. */
export const DEFAULT_FLUSH_THRESHOLD = 1024 * 1024;

export interface SessionLogOptions {
  /** Default `DEFAULT_FLUSH_THRESHOLD`; a positive integer. */
  flushThreshold?: number;
  /**
   * Cleans every line of credentials before it is kept, observed or written (model text, tool
   * results, errors alike), so memory, observers and the file hold the same redacted data.
   * Default none.
   */
  credentials?: JsonRedactor;
}

export interface CreateSessionOptions extends SessionLogOptions {
  directory: string;
  /** Default `newSessionId()`. Letters, digits, `.`, `_` and `-` only. */
  sessionId?: string;
  parentSession?: string | null;
  delegationDepth?: number;
  /** The workspace folder; the header records its real path (symlinks resolved). */
  cwd?: string;
  /** A fork's copy of its parent's completed turns; re-numbered from seq 1. */
  seed?: readonly SessionEvent[];
  /**
   * Default false: the file exists (with its header) when `create` returns. True: the session
   * is held in memory under its lock and its file is made later, by the first `written()` or
   * background flush (or at once by a `flush()`), holding every event appended until then; for
   * the many short sessions of a workflow's children. `filePace` decides whether that file is
   * made on the thread or off it, so a slow disk never stalls the host loop.
   */
  deferFile?: boolean;
  /** Default: the process's shared pace (see `file-creation-pace`). Only for a deferred file. */
  filePace?: FileCreationPace;
  /**
   * Default false: each prompt a request sends is logged in full (`prompt/blob`). True: it is
   * kept once in the prompt store beside the file and the log names it (`prompt/stored`).
   */
  sharedPrompts?: boolean;
}

/** Must not throw; a throw is contained and reported on stderr. */
export type SessionLogListener = (event: SessionEvent) => void;

const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const SUFFIX_VALUES = 36 ** 6;

/** The date and time part of the latest id, and the second it was made for. */
let latestStamp = { second: Number.NaN, text: '' };

/** A time-sortable id such as `20261130-001500-k3x9q2`: UTC date and time, six random characters. */
export function newSessionId(now: Date = new Date()): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== latestStamp.second) {
    const text = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    latestStamp = { second, text };
  }
  const stamp = latestStamp.text;
  // One draw for all six characters: the same uniform suffix as six draws, at a sixth the cost.
  const suffix = randomInt(SUFFIX_VALUES).toString(36).padStart(6, '0');
  return `${stamp}-${suffix}`;
}

/** Returns `sessionId` when it is safe as a file name, else throws naming it. */
export function validateSessionId(sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `session id ${JSON.stringify(sessionId)} may hold only letters, digits, '.', '_' and '-'`,
    );
  }
  return sessionId;
}

/** A file being made off the thread; `superseded` once `flush` made it on the thread instead. */
interface BackgroundCreation {
  done: Promise<void>;
  superseded: boolean;
}

/** Every open log of this process, with the writer lock it holds. */
const openLogs = new Map<SessionLog, SessionLock>();
let exitHookInstalled = false;

function flushOpenLogsOnExit(): void {
  for (const [log, lock] of openLogs) {
    try {
      log.flush();
    } catch (error) {
      process.stderr.write(`loom: could not flush ${log.path} at exit: ${errorMessage(error)}\n`);
    } finally {
      lock.release();
    }
  }
}

export class SessionLog {
  readonly path: string;
  readonly header: SessionHeader;
  /** Whether requests name their prompts in the prompt store (see `sharedPrompts`). */
  readonly sharesPrompts: boolean;
  private readonly memory: SessionEvent[];
  private readonly flushThreshold: number;
  private descriptor: number | undefined;
  /** The text a deferred file begins with (header and seed) until the file exists. */
  private unbornContent: string | undefined;
  private creation: BackgroundCreation | undefined;
  private readonly filePace: FileCreationPace;
  private isClosed = false;
  private pending: string[] = [];
  private pendingCharacters = 0;
  private unwritten: Buffer | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private writeFailure: unknown;
  /** Set by `seal`: later appends are dropped. */
  private sealed = false;
  private listeners: readonly SessionLogListener[] = [];
  private credentials: JsonRedactor | undefined;

  private constructor(
    path: string,
    header: SessionHeader,
    events: SessionEvent[],
    file: { descriptor: number } | { unbornContent: string },
    flushThreshold: number,
    lock: SessionLock,
    sharesPrompts = false,
    filePace: FileCreationPace = sharedFileCreationPace,
  ) {
    this.path = path;
    this.filePace = filePace;
    this.sharesPrompts = sharesPrompts;
    this.header = header;
    this.memory = events;
    if ('descriptor' in file) this.descriptor = file.descriptor;
    else this.unbornContent = file.unbornContent;
    this.flushThreshold = flushThreshold;
    openLogs.set(this, lock);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', flushOpenLogsOnExit);
    }
  }

  /**
   * Creates `<directory>/<sessionId>.jsonl`, holding its writer lock: the file appears with its
   * header and seed already in it, so a crash never leaves an empty or header-less file. With
   * `deferFile` it appears later (see there), the same way.
   */
  static create(options: CreateSessionOptions): SessionLog {
    const flushThreshold = validateThreshold(options.flushThreshold);
    const sessionId = validateSessionId(options.sessionId ?? newSessionId());
    const delegationDepth = options.delegationDepth ?? 0;
    if (!Number.isInteger(delegationDepth) || delegationDepth < 0) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `delegationDepth must be a whole number, got ${delegationDepth}`,
      );
    }
    const seed = options.seed ?? [];
    const time = Date.now();
    const header: SessionHeader = {
      version: SESSION_FORMAT_VERSION,
      sessionId,
      created: new Date(time).toISOString(),
      parentSession: options.parentSession ?? null,
      seedLength: seed.length,
      delegationDepth,
    };
    if (options.cwd !== undefined) header.cwd = headerFolder(options.cwd);
    // Pushed, not mapped: an optimised `map` makes a holey array, and `record` stays optimised
    // only while every log's events array has one elements kind.
    const events: SessionEvent[] = [];
    for (const [index, event] of seed.entries()) {
      events.push(copyEvent({ ...event, seq: index + 1 }, options.credentials));
    }
    const lines = [{ type: 'session/header', seq: 0, time, data: header }, ...events];
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');

    const path = join(options.directory, `${sessionId}.jsonl`);
    const lock = acquireLockMakingFolder(options.directory, path);
    if (options.deferFile === true) {
      const log = new SessionLog(
        path,
        header,
        events,
        { unbornContent: text },
        flushThreshold,
        lock,
        options.sharedPrompts,
        options.filePace,
      );
      log.credentials = options.credentials;
      return log;
    }
    try {
      const descriptor = createCompleteFileForAppending(path, text);
      if (descriptor === undefined) throw alreadyExists(path);
      const log = new SessionLog(
        path,
        header,
        events,
        { descriptor },
        flushThreshold,
        lock,
        options.sharedPrompts,
      );
      log.credentials = options.credentials;
      return log;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * Loads an existing file for appending, holding its writer lock (SESSION_BUSY when another
   * live process writes it), and closes what a crash left open (see `closingEvents`). A file
   * that a crash cut off before its header was complete gets a fresh header.
   */
  static open(path: string, options: SessionLogOptions = {}): SessionLog {
    const flushThreshold = validateThreshold(options.flushThreshold);
    const absolute = resolve(path);
    if ([...openLogs.keys()].some((log) => resolve(log.path) === absolute)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `session file ${path} is already open in this process`,
      );
    }
    const lock = acquireSessionLock(path);
    let log: SessionLog;
    try {
      // A link is refused before anything is read through it (and again by the append's open).
      refuseSymbolicLink(path);
      if (isHeaderless(path)) restoreHeader(path);
      const loaded = loadSessionFile(path);
      const descriptor = openForAppending(path, { create: false });
      try {
        if (loaded.tornTail) ftruncateSync(descriptor, loaded.intactBytes);
        if (!loaded.endsWithNewline) writeFully(descriptor, Buffer.from('\n'));
      } catch (error) {
        closeSync(descriptor);
        throw error;
      }
      log = new SessionLog(
        path,
        loaded.header,
        loaded.events,
        { descriptor },
        flushThreshold,
        lock,
      );
      log.credentials = options.credentials;
    } catch (error) {
      lock.release();
      throw error;
    }
    for (const repair of closingEvents(log.events, 'reopened')) {
      log.append(repair.type, repair.data as never);
    }
    log.flush();
    return log;
  }

  /** Every event after the header, in order. */
  get events(): readonly SessionEvent[] {
    return this.memory;
  }

  /** The seq of the latest event; 0 when only the header exists. */
  get lastSeq(): number {
    return this.memory.at(-1)?.seq ?? 0;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Numbers and records an event. `data` must be plain JSON data; the stored event holds its
   * JSON copy, so memory always equals what a reload gives. Observers run before this returns.
   */
  append<Type extends SessionEventType>(
    type: Type,
    data: SessionEventMap[Type],
  ): SessionEvent<Type> {
    this.beforeAppend(type);
    const seq = this.lastSeq + 1;
    const time = Date.now();
    const plain: string | undefined = JSON.stringify(data);
    const json = plain === undefined ? undefined : this.redacted(plain);
    // Only `data` is parsed back: the rest of the line is numbers and the type, copied as they are.
    const event = { type, seq, time } as SessionEvent<Type>;
    if (json !== undefined) event.data = JSON.parse(json) as SessionEventMap[Type];
    if (this.sealed) return event;
    if (json === undefined) {
      throw new UserError('INVALID_ARGUMENT', `event ${type} has no JSON data`);
    }
    const line = `{"type":${JSON.stringify(type)},"seq":${seq},"time":${time},"data":${json}}\n`;
    this.record(event, line);
    return event;
  }

  /** `json` without credentials; it stays valid JSON. */
  private redacted(json: string): string {
    return this.credentials === undefined ? json : this.credentials.redactJson(json);
  }

  /** Refuses an append to a closed log; after a failed write, writes what is held first (or throws). */
  private beforeAppend(type: SessionEventType): void {
    if (this.isClosed) {
      throw new LoomError(
        'INVALID_ARGUMENT',
        `session log ${this.path} is closed; cannot append ${type}`,
      );
    }
    if (this.writeFailure !== undefined) this.flush();
  }

  private record(event: SessionEvent, line: string): void {
    this.memory.push(event);
    this.pending.push(line);
    this.pendingCharacters += line.length;
    this.notify(event);
    if (this.pendingCharacters >= this.flushThreshold) this.flush();
    else this.scheduled ??= setImmediate(() => this.flushInBackground());
  }

  /**
   * Everything appended so far is on disk once this resolves, like `flush()`. A deferred file
   * not yet made is made first: on the thread while files are quick to make, else off it, so
   * the thread goes on with other work meanwhile (see `filePace`). Rejects when the file cannot
   * be made or written.
   */
  async written(): Promise<void> {
    if (this.unbornContent !== undefined && !this.makesFileOnThread()) {
      this.creation ??= this.createInBackground();
      await this.creation.done;
    }
    this.flush();
  }

  /** Whether a deferred file is made on the thread now: none is being made and files are quick. */
  private makesFileOnThread(): boolean {
    return this.creation === undefined && !this.filePace.inBackground;
  }

  /**
   * The file appears with every line appended until its temporary is open, in one write. A
   * creation that `createNow` superseded meanwhile makes no file.
   */
  private createInBackground(): BackgroundCreation {
    const creation: BackgroundCreation = { superseded: false, done: Promise.resolve() };
    const file = {
      content: () => (creation.superseded ? undefined : this.unbornText()),
      created: (descriptor: number) => {
        this.bornWith(descriptor);
        this.creation = undefined;
      },
    };
    creation.done = createCompleteFileForAppendingInBackground(this.path, file).then(
      (outcome) => {
        this.filePace.madeInBackground();
        if (outcome === 'exists') throw alreadyExists(this.path);
      },
      (error: unknown) => {
        // Superseded: `flush` made the file, so this failure costs nothing.
        if (creation.superseded) return;
        if (this.creation === creation) this.creation = undefined;
        throw error;
      },
    );
    return creation;
  }

  /** A deferred file's first bytes: its header and seed, then every line appended so far. */
  private unbornText(): string {
    return `${this.unbornContent}${this.pending.join('')}`;
  }

  /** The deferred file now exists, holding `unbornText()`; `descriptor` appends to it. */
  private bornWith(descriptor: number): void {
    this.descriptor = descriptor;
    this.unbornContent = undefined;
    this.pending = [];
    this.pendingCharacters = 0;
  }

  /**
   * Makes a deferred file now, on the thread. A creation still running in the background is
   * superseded: it has yet to make the file (it makes it and takes its place on this thread in
   * one step), and now it never will. The session's lock rules out anyone else making it.
   */
  private createNow(): void {
    const text = this.unbornText();
    const descriptor = this.filePace.timed(() => createCompleteFileForAppending(this.path, text));
    if (descriptor === undefined) throw alreadyExists(this.path);
    if (this.creation) this.creation.superseded = true;
    this.creation = undefined;
    this.bornWith(descriptor);
  }

  /**
   * `append` for data that many logs record alike (a prompt blob): `json` must be exactly
   * `JSON.stringify(data)` and `data` deep-frozen JSON data, so the logs' memories share it
   * instead of each parsing a copy. Memory still equals what a reload gives.
   */
  appendShared<Type extends SessionEventType>(
    type: Type,
    data: SessionEventMap[Type],
    json: string,
  ): SessionEvent<Type> {
    this.beforeAppend(type);
    const seq = this.lastSeq + 1;
    const time = Date.now();
    const redacted = this.redacted(json);
    const line = `{"type":${JSON.stringify(type)},"seq":${seq},"time":${time},"data":${redacted}}\n`;
    const kept = redacted === json ? data : (JSON.parse(redacted) as SessionEventMap[Type]);
    const event = { type, seq, time, data: kept } as SessionEvent<Type>;
    if (this.sealed) return event;
    this.record(event, line);
    return event;
  }

  /** Writes every pending line with a synchronous write; they are on disk when this returns. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.isClosed) return;
    if (this.unbornContent !== undefined) this.createNow();
    if (this.descriptor === undefined) return;
    if (this.pending.length > 0) {
      const fresh = Buffer.from(this.pending.join(''));
      this.unwritten = this.unwritten ? Buffer.concat([this.unwritten, fresh]) : fresh;
      this.pending = [];
      this.pendingCharacters = 0;
    }
    while (this.unwritten && this.unwritten.length > 0) {
      try {
        this.unwritten = this.unwritten.subarray(writeSync(this.descriptor, this.unwritten));
      } catch (error) {
        this.writeFailure = error;
        throw error;
      }
    }
    this.unwritten = undefined;
    this.writeFailure = undefined;
  }

  /**
   * For a process that must exit now, after its last events: flushes, then drops every later
   * append (returned, but neither kept, written nor observed), so work still ending on its own
   * cannot write past the ends already written. Sealing twice is harmless.
   */
  seal(): void {
    this.flush();
    this.sealed = true;
  }

  /** Flushes and releases the file; later appends throw. Closing twice is harmless. */
  close(): void {
    if (this.isClosed) return;
    try {
      this.flush();
    } finally {
      this.isClosed = true;
      if (this.descriptor !== undefined) closeSync(this.descriptor);
      this.descriptor = undefined;
      openLogs.get(this)?.release();
      openLogs.delete(this);
    }
  }

  /** Observes every later append, synchronously and in order. */
  onAppend(listener: SessionLogListener): Disposer {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((candidate) => candidate !== listener);
    };
  }

  private flushInBackground(): void {
    this.scheduled = undefined;
    const report = (error: unknown) => {
      process.stderr.write(
        `loom: could not write session log ${this.path}: ${errorMessage(error)}\n`,
      );
    };
    if (this.unbornContent !== undefined && !this.makesFileOnThread()) {
      this.written().catch(report);
      return;
    }
    try {
      this.flush();
    } catch (error) {
      report(error);
    }
  }

  private notify(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        const returned: unknown = listener(event);
        if (returned instanceof Promise) {
          returned.catch((error: unknown) => this.reportListenerFailure(event, error));
        }
      } catch (error) {
        this.reportListenerFailure(event, error);
      }
    }
  }

  private reportListenerFailure(event: SessionEvent, error: unknown): void {
    process.stderr.write(
      `loom: an observer of session ${this.header.sessionId} failed on ${event.type} (seq ${event.seq}): ${errorMessage(error)}\n`,
    );
  }
}

/**
 * Gives a file that a crash cut off before its header was complete (see `isHeaderless`) the
 * header it would have had: its id from the file name, its creation time from the file.
 */
function restoreHeader(path: string): void {
  const name = basename(path);
  const sessionId = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
  validateSessionId(sessionId);
  const time = Math.floor(statSync(path).mtimeMs);
  const header: SessionHeader = {
    version: SESSION_FORMAT_VERSION,
    sessionId,
    created: new Date(time).toISOString(),
    parentSession: null,
    seedLength: 0,
    delegationDepth: 0,
  };
  const line = { type: 'session/header', seq: 0, time, data: header };
  replaceWithCompleteFile(path, `${JSON.stringify(line)}\n`);
  process.stderr.write(
    `loom: session file ${path} had no complete header (a crash while it was created); wrote a fresh one\n`,
  );
}

/**
 * The real path of a session's workspace, resolved once per folder and process: a workflow's
 * thousand children share one workspace, and the path resolves the same for each of them.
 */
const realFolders = new Map<string, string>();

function headerFolder(cwd: string): string {
  let real = realFolders.get(cwd);
  if (real === undefined) {
    real = realFolder(cwd);
    if (isAbsolute(cwd) && realFolders.size < 16) realFolders.set(cwd, real);
  }
  return real;
}

/** Folders this thread made (or found) for sessions: a new session there needs no mkdir. */
const madeFolders = new Set<string>();

/** Takes the lock of `path` in `folder`, making the folder first unless made already and still there. */
function acquireLockMakingFolder(folder: string, path: string): SessionLock {
  if (madeFolders.has(folder)) {
    try {
      return acquireSessionLock(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      madeFolders.delete(folder);
    }
  }
  mkdirSync(folder, { recursive: true });
  madeFolders.add(folder);
  return acquireSessionLock(path);
}

function alreadyExists(path: string): UserError {
  return new UserError('INVALID_ARGUMENT', `session file ${path} already exists`);
}

function copyEvent(event: SessionEvent, credentials?: JsonRedactor): SessionEvent {
  const json = JSON.stringify(event);
  return JSON.parse(credentials ? credentials.redactJson(json) : json) as SessionEvent;
}

function validateThreshold(threshold: number | undefined): number {
  if (threshold === undefined) return DEFAULT_FLUSH_THRESHOLD;
  if (!Number.isInteger(threshold) || threshold < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `flushThreshold must be a positive whole number, got ${threshold}`,
    );
  }
  return threshold;
}
