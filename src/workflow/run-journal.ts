/**
 * A run's journal (`journal.ndjson`): one line per completed `agent()` call, keyed by a hash of
 * the call (nested workflow, prompt, options) and its occurrence among identical calls, so a
 * resumed script gets each recorded value back without a child. Lines are written in groups and
 * made durable (`fdatasync`, on the thread pool) before `record` resolves; the host loop never
 * waits on the disk. It never rewrites a line: the only bytes it removes are a torn last line.
 */
import { createHash } from 'node:crypto';
import { closeSync, fdatasync, ftruncateSync, readFileSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { openForAppending } from '../core/safe-write.js';
import type { AgentStartOptions } from './protocol.js';

export const JOURNAL_FILE = 'journal.ndjson';

/** One completed call as the journal keeps it. */
export interface JournalRecord {
  key: string;
  /** 1-based occurrence of `key` in its attempt, in the order the calls reached the host. */
  n: number;
  /** What the script got: the child's text, or its structured value. */
  value: unknown;
  usage: { input: number; output: number };
  label: string;
  workflow?: string;
  time: number;
}

/** The call as the journal identifies it; the run's `--model` and provider never take part. */
export interface JournalCall {
  prompt: string;
  options: AgentStartOptions;
  workflow?: string;
}

/** Writes bytes and makes them durable; resolves once they are. Injectable for tests. */
export interface JournalDisk {
  write(descriptor: number, bytes: Buffer): Promise<void>;
  sync(descriptor: number): Promise<void>;
}

const writeInBackground = promisify(write);
const syncInBackground = promisify(fdatasync);

export const realDisk: JournalDisk = {
  async write(descriptor, bytes) {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await writeInBackground(
        descriptor,
        bytes,
        written,
        bytes.length - written,
      );
      written += bytesWritten;
    }
  },
  sync: (descriptor) => syncInBackground(descriptor),
};

/** The value with every object's keys sorted, recursively; arrays keep their order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = canonical((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/**
 * sha256 hex of `[workflow ?? null, prompt, options with keys sorted]`. `timeoutMs` takes no
 * part: a time limit does not change the answer, and a resume with a longer one must still find
 * the calls that completed.
 */
export function journalKey(call: JournalCall): string {
  const { timeoutMs: _limit, ...options } = call.options;
  const text = JSON.stringify([call.workflow ?? null, call.prompt, canonical(options)]);
  return createHash('sha256').update(text).digest('hex');
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<JournalRecord>;
  return (
    typeof record.key === 'string' &&
    typeof record.n === 'number' &&
    'value' in record &&
    typeof record.usage === 'object' &&
    record.usage !== null
  );
}

/** The records of the file's text, and how many bytes hold whole lines (a torn tail excluded). */
export function readJournalText(text: Buffer): { records: JournalRecord[]; intactBytes: number } {
  const end = text.lastIndexOf(0x0a) + 1;
  const records: JournalRecord[] = [];
  for (const line of text.subarray(0, end).toString('utf8').split('\n')) {
    if (line === '') continue;
    try {
      const parsed: unknown = JSON.parse(line);
      // A line of another shape was not written by this journal; it answers nothing.
      if (isRecord(parsed)) records.push(parsed);
    } catch {
      // Likewise: an unreadable line is skipped, and its call simply runs again.
    }
  }
  return { records, intactBytes: end };
}

interface Pending {
  line: string;
  resolve: () => void;
}

export interface RunJournalOptions {
  disk?: JournalDisk;
  /** Hears a write that failed: the journal stops recording. Must not throw. */
  onFailure?: (message: string) => void;
}

export class RunJournal {
  readonly path: string;
  private readonly index = new Map<string, Map<number, JournalRecord>>();
  private readonly occurrences = new Map<string, number>();
  private readonly disk: JournalDisk;
  private readonly onFailure: (message: string) => void;
  private descriptor: number | undefined;
  private queued: Pending[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private failed = false;
  /** Calls this attempt answered from the journal. */
  hits = 0;

  /** Opens (or creates) the file, reads what earlier attempts recorded and cuts a torn tail. */
  constructor(path: string, options: RunJournalOptions = {}) {
    this.path = path;
    this.disk = options.disk ?? realDisk;
    this.onFailure = options.onFailure ?? (() => {});
    const descriptor = openForAppending(path, { read: true });
    try {
      const { records, intactBytes } = readJournalText(readFileSync(descriptor));
      for (const record of records) {
        let byOccurrence = this.index.get(record.key);
        if (!byOccurrence) {
          byOccurrence = new Map();
          this.index.set(record.key, byOccurrence);
        }
        byOccurrence.set(record.n, record);
      }
      ftruncateSync(descriptor, intactBytes);
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
    this.descriptor = descriptor;
  }

  /** Records from earlier attempts. */
  get size(): number {
    let count = 0;
    for (const byOccurrence of this.index.values()) count += byOccurrence.size;
    return count;
  }

  /** Counts one more call with `key` in this attempt; returns its occurrence number. */
  occurrence(key: string): number {
    const n = (this.occurrences.get(key) ?? 0) + 1;
    this.occurrences.set(key, n);
    return n;
  }

  /** The recorded answer of occurrence `n` of `key`, from an earlier attempt. */
  lookup(key: string, n: number): JournalRecord | undefined {
    return this.index.get(key)?.get(n);
  }

  /**
   * Appends `record`; resolves once its line is durable (or the journal has failed, which was
   * reported). Never rejects. Records of one turn of the loop share one write and one sync.
   */
  record(record: JournalRecord): Promise<void> {
    if (this.failed || this.descriptor === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.queued.push({ line: `${JSON.stringify(record)}\n`, resolve });
      if (!this.scheduled && this.writing === undefined) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const group = this.queued;
    this.queued = [];
    if (group.length === 0) return;
    this.writing = this.writeGroup(group).then(() => {
      this.writing = undefined;
      if (this.queued.length > 0) this.flush();
    });
  };

  private async writeGroup(group: Pending[]): Promise<void> {
    const descriptor = this.descriptor;
    try {
      if (descriptor === undefined || this.failed) return;
      await this.disk.write(descriptor, Buffer.from(group.map((pending) => pending.line).join('')));
      await this.disk.sync(descriptor);
    } catch (error) {
      this.failed = true;
      this.onFailure(
        `the run's journal (${this.path}) could not be written, so this run resumes only up to here: ${(error as Error).message}`,
      );
    } finally {
      for (const pending of group) pending.resolve();
    }
  }

  /** Waits for every queued line, then closes the file. Never rejects. */
  async close(): Promise<void> {
    while (this.writing !== undefined || this.queued.length > 0) {
      if (this.writing === undefined) this.flush();
      await this.writing;
    }
    this.closeDescriptor();
  }

  /**
   * Closes at once; lines not yet written are dropped (their calls run again on resume). A
   * write already on the thread pool keeps the file open until it returns, so its descriptor
   * is never reused under it.
   */
  closeNow(): void {
    this.failed = true;
    for (const pending of this.queued) pending.resolve();
    this.queued = [];
    if (this.writing !== undefined) {
      this.writing.then(() => this.closeDescriptor());
      return;
    }
    this.closeDescriptor();
  }

  private closeDescriptor(): void {
    if (this.descriptor === undefined) return;
    const descriptor = this.descriptor;
    this.descriptor = undefined;
    try {
      closeSync(descriptor);
    } catch {
      // Nothing is left to lose: every durable line is already on disk.
    }
  }
}
