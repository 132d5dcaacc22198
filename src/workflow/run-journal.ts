/**
 * A run's journal (`journal.ndjson`): one line per completed `agent()` call, keyed by a hash of
 * the call (nested workflow, prompt, options) and its occurrence among identical calls, so a
 * resumed script gets each recorded value back without a child. Each line carries a checksum
 * (`journal-lines.ts`); a line that cannot be trusted, or whose kind contradicts its call, is
 * named and never replayed. Lines are written in groups and made durable (`fdatasync`, on the
 * thread pool) before `record` resolves; the host loop never waits on the disk. It never rewrites
 * a line: the only bytes it removes are a torn last line.
 */
import { createHash } from 'node:crypto';
import { closeSync, fdatasync, ftruncateSync, readFileSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { openForAppending } from '../core/safe-write.js';
import {
  canonical,
  type JournalKind,
  type JournalRecord,
  journalLine,
  readJournalText,
} from './journal-lines.js';
import type { AgentStartOptions } from './protocol.js';

export {
  type JournalKind,
  type JournalProblem,
  type JournalRecord,
  journalLine,
  readJournalText,
} from './journal-lines.js';

export const JOURNAL_FILE = 'journal.ndjson';

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

interface Pending {
  line: string;
  resolve: () => void;
}

export interface RunJournalOptions {
  disk?: JournalDisk;
  /** Hears a write that failed: the journal stops recording. Must not throw. */
  onFailure?: (message: string) => void;
  /** Hears a record that `lookup` does not replay (it contradicts its call). Must not throw. */
  onWarning?: (message: string) => void;
}

/** Line numbers listed in a warning before the rest are counted. */
const LISTED_LINES = 10;

function lineList(lines: readonly number[]): string {
  const listed = lines.slice(0, LISTED_LINES).join(', ');
  return lines.length > LISTED_LINES ? `${listed} and ${lines.length - LISTED_LINES} more` : listed;
}

/** What the reader found in the file that is not replayed, one message each. */
function readingWarnings(text: ReturnType<typeof readJournalText>): string[] {
  const warnings = text.problems.map(
    (problem) =>
      `journal line ${problem.line} ${problem.reason}; the call runs again instead of being replayed`,
  );
  const { unchecked } = text;
  if (unchecked.length > 0) {
    warnings.push(
      `journal line${unchecked.length === 1 ? '' : 's'} ${lineList(unchecked)} carr${unchecked.length === 1 ? 'ies' : 'y'} no checksum ` +
        '(an earlier Loom wrote them), so they cannot be trusted: their calls run again instead of being replayed',
    );
  }
  return warnings;
}

export class RunJournal {
  readonly path: string;
  /** What the file held that is not replayed (damaged, duplicated, unchecked lines), named. */
  readonly warnings: readonly string[];
  private readonly index = new Map<string, Map<number, { record: JournalRecord; line: number }>>();
  private readonly occurrences = new Map<string, number>();
  private readonly disk: JournalDisk;
  private readonly onFailure: (message: string) => void;
  private readonly onWarning: (message: string) => void;
  private descriptor: number | undefined;
  private queued: Pending[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;
  private failed = false;
  /** Calls this attempt answered from the journal. */
  hits = 0;

  /**
   * Opens (or creates) the file, reads what earlier attempts recorded and cuts a torn tail. Only
   * lines that pass their checksum and name a call no other line names are replayed; every other
   * line is named in `warnings`.
   */
  constructor(path: string, options: RunJournalOptions = {}) {
    this.path = path;
    this.disk = options.disk ?? realDisk;
    this.onFailure = options.onFailure ?? (() => {});
    this.onWarning = options.onWarning ?? (() => {});
    const descriptor = openForAppending(path, { read: true });
    try {
      const text = readJournalText(readFileSync(descriptor));
      text.records.forEach((record, index) => {
        let byOccurrence = this.index.get(record.key);
        if (!byOccurrence) {
          byOccurrence = new Map();
          this.index.set(record.key, byOccurrence);
        }
        byOccurrence.set(record.n, { record, line: text.recordLines[index] ?? 0 });
      });
      this.warnings = readingWarnings(text);
      ftruncateSync(descriptor, text.intactBytes);
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

  /**
   * The recorded answer of occurrence `n` of `key`, from an earlier attempt; undefined (and a
   * warning) when the record's kind is not the one the call asks for (`schema`: it has one).
   */
  lookup(key: string, n: number, kind: JournalKind): JournalRecord | undefined {
    const found = this.index.get(key)?.get(n);
    if (found === undefined || found.record.kind === kind) return found?.record;
    this.onWarning(
      `journal line ${found.line} holds ${found.record.kind === 'schema' ? 'a schema value' : 'text'} but its call asks for ` +
        `${kind === 'schema' ? 'a schema value' : 'text'}; the call runs again instead of being replayed`,
    );
    return undefined;
  }

  /**
   * Appends `record`; resolves once its line is durable (or the journal has failed, which was
   * reported). Never rejects. Records of one turn of the loop share one write and one sync.
   */
  record(record: JournalRecord): Promise<void> {
    if (this.failed || this.descriptor === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      this.queued.push({ line: journalLine(record), resolve });
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
