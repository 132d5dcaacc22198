/**
 * The lines of a run's journal: each is one completed call as JSON with a `check`, a sha256 of
 * the canonical JSON of everything else on the line (key, occurrence, kind, value, usage, label,
 * time), so a line changed by hand or by a damaged disk is told apart from one Loom wrote. The
 * reader keeps only lines it can trust and names every other one (line number, why); a line it
 * drops is never replayed, so its call runs again. It never throws on what the file holds.
 */
import { createHash } from 'node:crypto';

/** What the script got back: a child's text, or its structured (schema) value. */
export type JournalKind = 'text' | 'schema';

/** One completed call as the journal keeps it. */
export interface JournalRecord {
  key: string;
  /** 1-based occurrence of `key` in its attempt, in the order the calls reached the host. */
  n: number;
  kind: JournalKind;
  /** What the script got: the child's text (`text`), or its structured value (`schema`). */
  value: unknown;
  /** The call's tokens; cache reads and writes (counted in `input` too) when any were reported. */
  usage: { input: number; output: number; cachedInput?: number; cacheWrite?: number };
  label: string;
  workflow?: string;
  time: number;
}

/** A line the reader does not trust; its call (if it named one) runs again. */
export interface JournalProblem {
  /** 1-based line number in the file. */
  line: number;
  reason: string;
}

export interface JournalText {
  /** The trusted records, in file order; no two share a key and occurrence. */
  records: JournalRecord[];
  /** The line number of each of `records`. */
  recordLines: number[];
  /** Every other line, in file order (a torn last line included). */
  problems: JournalProblem[];
  /** Line numbers of records without a checksum (written by a Loom before checksums). */
  unchecked: number[];
  /** Bytes at the start of the file that hold whole lines; a torn last line begins here. */
  intactBytes: number;
}

/** The value with every object's keys sorted, recursively; arrays keep their order. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = canonical((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** The check of a line's fields as JSON gives them back: 32 hex digits of sha256. */
function checkOf(fields: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(fields)))
    .digest('hex')
    .slice(0, 32);
}

/** The line (newline included) that records `record`, with its check. */
export function journalLine(record: JournalRecord): string {
  // Checked as a reader will see it: what JSON keeps of the value (no undefined, no -0).
  const fields = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  return `${JSON.stringify({ ...fields, check: checkOf(fields) })}\n`;
}

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** What a JSON value is, in words: `null`, `a list`, `a JSON object`, `a number`… */
function jsonKindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a JSON object' : `a ${typeof value}`;
}

/** Why `fields` are not a record this journal writes; undefined when they are. */
function shapeProblem(fields: Record<string, unknown>): string | undefined {
  const usage = fields.usage as Record<string, unknown> | null | undefined;
  if (typeof fields.key !== 'string' || fields.key === '') return 'has no call key';
  if (!Number.isSafeInteger(fields.n) || (fields.n as number) < 1)
    return 'has no occurrence number';
  if (fields.kind !== 'text' && fields.kind !== 'schema') return 'says neither text nor schema';
  if (!('value' in fields)) return 'has no value';
  if (fields.kind === 'text' && typeof fields.value !== 'string') {
    return `says text but holds ${jsonKindOf(fields.value)}`;
  }
  if (
    typeof usage !== 'object' ||
    usage === null ||
    !isCount(usage.input) ||
    !isCount(usage.output) ||
    (usage.cachedInput !== undefined && !isCount(usage.cachedInput)) ||
    (usage.cacheWrite !== undefined && !isCount(usage.cacheWrite))
  ) {
    return 'has no token counts';
  }
  if (typeof fields.label !== 'string' || typeof fields.time !== 'number')
    return 'has no label or time';
  if (fields.workflow !== undefined && typeof fields.workflow !== 'string')
    return 'names no workflow';
  return undefined;
}

/** The line as a record, or why it is not one; `unchecked` for a line of an earlier format. */
function readLine(line: string): JournalRecord | 'unchecked' | { reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { reason: 'is not JSON (garbled, or a torn write)' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { reason: 'is not a journal record' };
  }
  const { check, ...fields } = parsed as Record<string, unknown>;
  if (check === undefined && typeof fields.key === 'string' && 'value' in fields)
    return 'unchecked';
  if (typeof check !== 'string') return { reason: 'is not a journal record (no checksum)' };
  if (check !== checkOf(fields))
    return { reason: 'fails its checksum (it was changed after it was written)' };
  const problem = shapeProblem(fields);
  if (problem !== undefined) return { reason: `is not a journal record: it ${problem}` };
  return fields as unknown as JournalRecord;
}

/** Reads the file's text: trusted records, and every line that is not one, named. */
export function readJournalText(text: Buffer): JournalText {
  const end = text.lastIndexOf(0x0a) + 1;
  const lines = text.subarray(0, end).toString('utf8').split('\n');
  lines.pop();
  const problems: JournalProblem[] = [];
  const unchecked: number[] = [];
  /** Per call (key and occurrence), the line of its first trusted record. */
  const firstLine = new Map<string, number>();
  const duplicated = new Set<string>();
  const kept: Array<{ record: JournalRecord; call: string; line: number }> = [];
  lines.forEach((line, index) => {
    if (line === '') return;
    const read = readLine(line);
    if (read === 'unchecked') unchecked.push(index + 1);
    else if ('reason' in read) problems.push({ line: index + 1, reason: read.reason });
    else {
      const call = `${read.key}/${read.n}`;
      const first = firstLine.get(call);
      if (first === undefined) {
        firstLine.set(call, index + 1);
        kept.push({ record: read, call, line: index + 1 });
        return;
      }
      duplicated.add(call);
      problems.push({
        line: index + 1,
        reason: `records the same call as line ${first} (a duplicate), so neither is trusted`,
      });
    }
  });
  if (end < text.length) {
    problems.push({
      line: lines.length + 1,
      reason: 'is torn (a write cut off before its end) and is cut off',
    });
  }
  problems.sort((left, right) => left.line - right.line);
  const trusted = kept.filter((entry) => !duplicated.has(entry.call));
  return {
    records: trusted.map((entry) => entry.record),
    recordLines: trusted.map((entry) => entry.line),
    problems,
    unchecked,
    intactBytes: end,
  };
}
