/**
 * Reads a session file back into events and works out what a crash left open. A torn last line
 * (no newline, cut by a crash) is tolerated and reported; any other damage is SESSION_CORRUPT
 * naming the file and line; so is a file cut off before its header was complete, with a message
 * saying that opening it for writing repairs it. Loading must never modify the file, and repair
 * only ever proposes events to append: history is never rewritten.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { UserError } from '../base/errors.js';
import { addUsage, emptyUsage, type Usage } from '../llm/contract.js';
import {
  isEvent,
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionEventMap,
  type SessionEventType,
  type SessionHeader,
} from './session-events.js';

export interface LoadedSession {
  header: SessionHeader;
  /** Every whole event after the header, in file order. */
  events: SessionEvent[];
  /** The last line was cut by a crash (no newline, not JSON); it is not among `events`. */
  tornTail: boolean;
  /** Bytes at the start of the file that hold whole lines; a torn tail begins here. */
  intactBytes: number;
  /** False when the last whole line lacks its newline, so the next append must add one. */
  endsWithNewline: boolean;
}

/** An event that repair proposes to append. */
export type RepairEvent =
  | { type: 'tool/result'; data: SessionEventMap['tool/result'] }
  | { type: 'step/end'; data: SessionEventMap['step/end'] }
  | { type: 'turn/end'; data: SessionEventMap['turn/end'] };

/** The content of the error result that repair gives a tool call that never got its own. */
export const INTERRUPTED_CALL_TEXT =
  'The call was interrupted: Loom stopped before the tool returned a result, so its effects are unknown.';

const NEWLINE = 0x0a;
/** How every session file begins; a header cut off by a crash is a prefix of it, or starts so. */
const HEADER_OPENING = '{"type":"session/header","seq":0,';

export function loadSessionFile(path: string): LoadedSession {
  const bytes = readSession(path);
  if (lacksHeader(bytes)) {
    const name = basename(path);
    const sessionId = name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
    throw new UserError(
      'SESSION_CORRUPT',
      `session file ${path} has no complete header: a crash cut it off while it was being ` +
        `created, before any event was written. Continuing it (loom run --session ${sessionId}) ` +
        'gives it a fresh header; deleting it loses nothing',
    );
  }
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  const corrupt = (line: number, reason: string) =>
    new UserError('SESSION_CORRUPT', `session file ${path} is corrupt at line ${line}: ${reason}`);

  const header = parseHeader(lines[0] ?? '', corrupt);
  const events: SessionEvent[] = [];
  let tornTail = false;
  let previousSeq = 0;
  for (let index = 1; index < lines.length; index++) {
    const lineNumber = index + 1;
    const isUnterminatedTail = index === lines.length - 1 && !endsWithNewline;
    let value: unknown;
    try {
      value = JSON.parse(lines[index] as string);
    } catch {
      if (isUnterminatedTail) {
        tornTail = true;
        break;
      }
      throw corrupt(lineNumber, 'not valid JSON');
    }
    const problem = eventShapeProblem(value);
    if (problem) throw corrupt(lineNumber, problem);
    const event = value as SessionEvent;
    if (event.seq <= previousSeq) {
      throw corrupt(lineNumber, `seq ${event.seq} does not increase (previous ${previousSeq})`);
    }
    previousSeq = event.seq;
    events.push(event);
  }
  const intactBytes = tornTail ? bytes.lastIndexOf(NEWLINE) + 1 : bytes.length;
  return { header, events, tornTail, intactBytes, endsWithNewline: endsWithNewline || tornTail };
}

/** Whether the file at `path` was cut off before its header was complete (see `lacksHeader`). */
export function isHeaderless(path: string): boolean {
  return lacksHeader(readSession(path));
}

/**
 * Empty, or one unterminated line that is the start of a header and not yet JSON: what a crash
 * leaves between creating a session file and finishing its header. Anything else is not ours
 * to replace.
 */
function lacksHeader(bytes: Buffer): boolean {
  if (bytes.length === 0) return true;
  if (bytes.includes(NEWLINE)) return false;
  const text = bytes.toString('utf8');
  if (!HEADER_OPENING.startsWith(text) && !text.startsWith(HEADER_OPENING)) return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

function readSession(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UserError('SESSION_NOT_FOUND', `session file ${path} does not exist`);
    }
    if (code === 'EISDIR') {
      throw new UserError('SESSION_CORRUPT', `session file ${path} is a directory, not a file`);
    }
    throw error;
  }
}

function parseHeader(
  line: string,
  corrupt: (line: number, reason: string) => Error,
): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw corrupt(
      1,
      line === '' ? 'the header line is missing' : 'the header line is not valid JSON',
    );
  }
  const record = asRecord(value);
  if (record?.type !== 'session/header' || record.seq !== 0) {
    throw corrupt(1, 'the first line is not a session/header event with seq 0');
  }
  const data = asRecord(record.data);
  if (!data) throw corrupt(1, 'the header has no data object');
  const version = data.version;
  if (
    !Number.isInteger(version) ||
    (version as number) < 1 ||
    (version as number) > SESSION_FORMAT_VERSION
  ) {
    throw corrupt(
      1,
      `unsupported format version ${JSON.stringify(version)} (supported: 1 to ${SESSION_FORMAT_VERSION})`,
    );
  }
  const fieldProblems: Array<[string, boolean]> = [
    ['sessionId', typeof data.sessionId === 'string' && data.sessionId !== ''],
    ['created', typeof data.created === 'string'],
    ['parentSession', data.parentSession === null || typeof data.parentSession === 'string'],
    ['seedLength', isCount(data.seedLength)],
    ['delegationDepth', isCount(data.delegationDepth)],
    ['cwd', data.cwd === undefined || typeof data.cwd === 'string'],
  ];
  const invalid = fieldProblems.find(([, valid]) => !valid);
  if (invalid) throw corrupt(1, `the header field ${invalid[0]} is invalid`);
  return data as unknown as SessionHeader;
}

function eventShapeProblem(value: unknown): string | undefined {
  const record = asRecord(value);
  if (!record) return 'not a JSON object';
  if (typeof record.type !== 'string' || record.type === '') return 'the field type is missing';
  if (!Number.isInteger(record.seq)) return 'the field seq is not an integer';
  if (typeof record.time !== 'number') return 'the field time is not a number';
  if (!('data' in record)) return 'the field data is missing';
  return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0;
}

interface OpenTurn {
  usage: Usage;
  steps: number;
}

interface OpenStep {
  turnId: string;
  step: number;
  usage: Usage;
  /** Calls still waiting for their result, in call order: call id to its name and enclosing call. */
  calls: Map<string, { name: string; parentCallId?: string }>;
}

/**
 * The events that close what a crash left open, in the order to append them: each `tool/call`
 * of an open step without its `tool/result` gets an error result saying it was interrupted (in
 * call order), each open `step/start` a `step/end` (finishReason `error`), then each open turn a
 * `turn/end` with reason `interrupted`. Empty when nothing is open, so repairing twice adds
 * nothing.
 */
export function repairEvents(events: readonly SessionEvent[]): RepairEvent[] {
  const turns = new Map<string, OpenTurn>();
  const steps = new Map<string, OpenStep>();
  const stepKey = (turnId: string, step: number) => `${turnId}\u0000${step}`;
  for (const event of events) {
    if (isEvent(event, 'turn/start')) {
      turns.set(event.data.turnId, { usage: emptyUsage(), steps: 0 });
    } else if (isEvent(event, 'turn/end')) {
      turns.delete(event.data.turnId);
    } else if (isEvent(event, 'step/start')) {
      const { turnId, step } = event.data;
      steps.set(stepKey(turnId, step), { turnId, step, usage: emptyUsage(), calls: new Map() });
      const turn = turns.get(turnId);
      if (turn) turn.steps += 1;
    } else if (isEvent(event, 'step/end')) {
      steps.delete(stepKey(event.data.turnId, event.data.step));
    } else if (isEvent(event, 'tool/call')) {
      const { turnId, step, callId, name, parentCallId } = event.data;
      steps
        .get(stepKey(turnId, step))
        ?.calls.set(callId, parentCallId === undefined ? { name } : { name, parentCallId });
    } else if (isEvent(event, 'tool/result')) {
      const { turnId, step, callId } = event.data;
      steps.get(stepKey(turnId, step))?.calls.delete(callId);
    } else if (isEvent(event, 'assistant/message')) {
      const { turnId, step, usage } = event.data;
      const turn = turns.get(turnId);
      if (turn) turn.usage = addUsage(turn.usage, usage);
      const openStep = steps.get(stepKey(turnId, step));
      if (openStep) openStep.usage = addUsage(openStep.usage, usage);
    } else if (isEvent(event, 'model/side-request')) {
      const { turnId, usage } = event.data;
      const turn = turnId === undefined ? undefined : turns.get(turnId);
      if (turn) turn.usage = addUsage(turn.usage, usage);
    }
  }
  const repairs: RepairEvent[] = [];
  const closeSteps = (belongs: (turnId: string) => boolean) => {
    for (const [key, open] of steps) {
      if (!belongs(open.turnId)) continue;
      // Inner calls (Code Mode) close before the calls that made them.
      const openCalls = [...open.calls].sort(
        ([, first], [, second]) =>
          Number(second.parentCallId !== undefined) - Number(first.parentCallId !== undefined),
      );
      for (const [callId, { name, parentCallId }] of openCalls) {
        const data: SessionEventMap['tool/result'] = {
          turnId: open.turnId,
          step: open.step,
          callId,
          name,
          content: INTERRUPTED_CALL_TEXT,
          isError: true,
          errorCode: 'INTERRUPTED',
        };
        if (parentCallId !== undefined) data.parentCallId = parentCallId;
        repairs.push({ type: 'tool/result', data });
      }
      repairs.push({
        type: 'step/end',
        data: { turnId: open.turnId, step: open.step, finishReason: 'error', usage: open.usage },
      });
      steps.delete(key);
    }
  };
  closeSteps((turnId) => !turns.has(turnId));
  for (const [turnId, turn] of turns) {
    closeSteps((owner) => owner === turnId);
    repairs.push({
      type: 'turn/end',
      data: { turnId, reason: 'interrupted', usage: turn.usage, steps: turn.steps },
    });
  }
  return repairs;
}

/**
 * Why a session is repaired: `reopened`, a stored session opened again (what it left open was
 * left by a process that ended); `stopping`, this process stopping its own live session at once
 * (what is open is its own work, ended as part of the stop).
 */
export type RepairSituation = 'reopened' | 'stopping';

/**
 * A layer's own repair: given a loaded session's events, the events that close what that layer
 * left open (a `job/start` without its `job/end`, say). It may act on what the events name (end
 * a leftover process, say) but must not throw, and must return nothing when nothing is open, so
 * repairing twice adds nothing.
 */
export type SessionRepairer = (
  events: readonly SessionEvent[],
  situation: RepairSituation,
) => Array<
  { [Type in SessionEventType]: { type: Type; data: SessionEventMap[Type] } }[SessionEventType]
>;

const repairers = new Set<SessionRepairer>();

/** Registers a layer's repair for every session opened from now on; returns its undo. */
export function addSessionRepairer(repairer: SessionRepairer): () => void {
  repairers.add(repairer);
  return () => {
    repairers.delete(repairer);
  };
}

/**
 * Everything that closes what `events` left open, in the order to append it: each layer's own
 * repair first (what ran inside a turn, such as a command group, ends before the turn), then
 * `repairEvents`, so a repaired log ends with its turn. Empty when nothing is open.
 */
export function closingEvents(
  events: readonly SessionEvent[],
  situation: RepairSituation,
): ReturnType<SessionRepairer> {
  const layers = [...repairers].flatMap((repairer) => repairer(events, situation));
  return [...layers, ...repairEvents(events)];
}
