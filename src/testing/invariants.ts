/**
 * The event-stream invariant checker, public so Loom's tests and users' tests hold sessions to
 * the same rules: increasing seq, every start with exactly one end, tool results answering their
 * calls in order, an inner call (`parentCallId`) made and answered while its enclosing call is
 * open, nothing of a turn outside it, every request's prompt logged before it. An event whose
 * data has a string `turnId` (and a numeric `step`) belongs to that turn (and step). Checking
 * must never throw on odd input.
 */
import type { SessionEvent } from '../core/session-events.js';

export interface PairRule {
  /** The event type that opens a pair, such as `step/start`. */
  start: string;
  /** The event type that closes it, such as `step/end`. */
  end: string;
  /** Identifies one pair within the stream; `undefined` leaves the event out. */
  key: (event: SessionEvent) => string | undefined;
}

/** Each `start` must be followed by exactly one `end` with the same key, and keys never reused. */
export function checkPairs(events: readonly SessionEvent[], rule: PairRule): string[] {
  const violations: string[] = [];
  const open = new Map<string, SessionEvent>();
  const ended = new Set<string>();
  for (const event of events) {
    if (event.type !== rule.start && event.type !== rule.end) continue;
    const key = rule.key(event);
    if (key === undefined) continue;
    const where = `${event.type} ${key} (seq ${event.seq})`;
    if (event.type === rule.start) {
      const earlier = open.get(key);
      if (earlier) violations.push(`${where} starts again while open since seq ${earlier.seq}`);
      else if (ended.has(key)) violations.push(`${where} reuses a key that already ended`);
      open.set(key, event);
    } else if (open.has(key)) {
      open.delete(key);
      ended.add(key);
    } else {
      violations.push(
        ended.has(key)
          ? `${where} is a second ${rule.end}`
          : `${where} has no ${rule.start} before it`,
      );
    }
  }
  for (const [key, event] of open) {
    violations.push(`${rule.start} ${key} (seq ${event.seq}) has no ${rule.end}`);
  }
  return violations;
}

function field(event: SessionEvent, name: string): unknown {
  const data: unknown = event.data;
  return typeof data === 'object' && data !== null
    ? (data as Record<string, unknown>)[name]
    : undefined;
}

function turnOf(event: SessionEvent): string | undefined {
  const turnId = field(event, 'turnId');
  return typeof turnId === 'string' ? turnId : undefined;
}

function stepOf(event: SessionEvent): string | undefined {
  const turnId = turnOf(event);
  const step = field(event, 'step');
  return turnId !== undefined && typeof step === 'number' ? `${turnId}/${step}` : undefined;
}

function callOf(event: SessionEvent): string | undefined {
  const turnId = turnOf(event);
  const callId = field(event, 'callId');
  return turnId !== undefined && typeof callId === 'string' ? `${turnId}/${callId}` : undefined;
}

function checkSeq(events: readonly SessionEvent[]): string[] {
  const violations: string[] = [];
  for (let index = 1; index < events.length; index++) {
    const previous = events[index - 1] as SessionEvent;
    const current = events[index] as SessionEvent;
    if (!(current.seq > previous.seq)) {
      violations.push(
        `seq ${current.seq} (${current.type}) does not increase after seq ${previous.seq}`,
      );
    }
  }
  return violations;
}

/** Turns never overlap, and an event of a turn or step lies between its start and its end. */
function checkScopes(events: readonly SessionEvent[]): string[] {
  const violations: string[] = [];
  const scopes = [
    { name: 'turn', start: 'turn/start', end: 'turn/end', of: turnOf },
    { name: 'step', start: 'step/start', end: 'step/end', of: stepOf },
  ];
  for (const scope of scopes) {
    const started = new Set<string>();
    const ended = new Set<string>();
    const open = new Set<string>();
    for (const event of events) {
      const id = scope.of(event);
      if (id === undefined) continue;
      if (event.type === scope.start) {
        if (scope.name === 'turn' && open.size > 0) {
          violations.push(
            `turn ${id} starts (seq ${event.seq}) while turn ${[...open].join(', ')} is open`,
          );
        }
        started.add(id);
        open.add(id);
      } else if (event.type === scope.end) {
        ended.add(id);
        open.delete(id);
      } else if (ended.has(id)) {
        violations.push(
          `${event.type} (seq ${event.seq}) comes after the end of its ${scope.name} ${id}`,
        );
      } else if (!started.has(id)) {
        violations.push(
          `${event.type} (seq ${event.seq}) comes before the start of its ${scope.name} ${id}`,
        );
      }
    }
  }
  return violations;
}

function parentOf(event: SessionEvent): string | undefined {
  const parentCallId = field(event, 'parentCallId');
  return typeof parentCallId === 'string' ? parentCallId : undefined;
}

/**
 * Within a step, the model's calls are answered in their order, and the inner calls of one
 * enclosing call in theirs.
 */
function checkResultOrder(events: readonly SessionEvent[]): string[] {
  const violations: string[] = [];
  const calls = new Map<string, string[]>();
  const results = new Map<string, string[]>();
  for (const event of events) {
    const step = stepOf(event);
    const callId = field(event, 'callId');
    if (step === undefined || typeof callId !== 'string') continue;
    const target =
      event.type === 'tool/call' ? calls : event.type === 'tool/result' ? results : undefined;
    if (!target) continue;
    const parent = parentOf(event);
    const group = parent === undefined ? step : `${step}\u0000${parent}`;
    const list = target.get(group) ?? [];
    list.push(callId);
    target.set(group, list);
  }
  for (const [group, answered] of results) {
    const called = calls.get(group) ?? [];
    const expected = called.filter((callId) => answered.includes(callId));
    const actual = answered.filter((callId) => called.includes(callId));
    if (expected.join('\u0000') !== actual.join('\u0000')) {
      const [step, parent] = group.split('\u0000');
      const whose = parent === undefined ? `step ${step}` : `call ${parent} in step ${step}`;
      violations.push(
        `tool results of ${whose} come in order ${actual.join(', ')} but the calls were ${expected.join(', ')}`,
      );
    }
  }
  return violations;
}

/**
 * An inner call starts while its enclosing call (same turn) is open, names the same parent in
 * its result, and is answered before the enclosing call is.
 */
function checkInnerCalls(events: readonly SessionEvent[]): string[] {
  const violations: string[] = [];
  const open = new Map<string, { seq: number; turnId: string; parent: string | undefined }>();
  for (const event of events) {
    if (event.type !== 'tool/call' && event.type !== 'tool/result') continue;
    const turnId = turnOf(event);
    const callId = field(event, 'callId');
    if (turnId === undefined || typeof callId !== 'string') continue;
    const key = `${turnId}/${callId}`;
    const parent = parentOf(event);
    const where = `${event.type} ${key} (seq ${event.seq})`;
    if (event.type === 'tool/call') {
      if (parent !== undefined && !open.has(`${turnId}/${parent}`)) {
        violations.push(`${where} is inside call ${parent}, which is not open`);
      }
      if (!open.has(key)) open.set(key, { seq: event.seq, turnId, parent });
      continue;
    }
    const call = open.get(key);
    if (!call) continue;
    open.delete(key);
    if (call.parent !== parent) {
      violations.push(
        `${where} names parent ${parent ?? 'none'} but its call named ${call.parent ?? 'none'}`,
      );
    }
    for (const [innerKey, inner] of open) {
      if (inner.parent === callId && inner.turnId === turnId) {
        violations.push(
          `${where} comes before the result of its inner call ${innerKey} (seq ${inner.seq})`,
        );
      }
    }
  }
  return violations;
}

/**
 * Each `request/header` naming a `prompt` hash comes after a `prompt/blob` of that hash, or a
 * `prompt/stored` reference to it.
 */
function checkPromptBlobs(events: readonly SessionEvent[]): string[] {
  const violations: string[] = [];
  const logged = new Set<unknown>();
  for (const event of events) {
    if (event.type === 'prompt/blob' || event.type === 'prompt/stored') {
      logged.add(field(event, 'hash'));
    }
    if (event.type !== 'request/header') continue;
    const prompt = field(event, 'prompt');
    if (prompt === undefined) continue;
    if (!logged.has(prompt)) {
      violations.push(
        `request/header (seq ${event.seq}) names prompt ${String(prompt)} but no prompt/blob or prompt/stored before it holds it`,
      );
    }
  }
  return violations;
}

/** Every rule broken by `events`, as readable sentences; empty when the stream is sound. */
export function checkSessionInvariants(events: readonly SessionEvent[]): string[] {
  return [
    ...checkSeq(events),
    ...checkPairs(events, { start: 'turn/start', end: 'turn/end', key: turnOf }),
    ...checkPairs(events, { start: 'step/start', end: 'step/end', key: stepOf }),
    ...checkPairs(events, { start: 'tool/call', end: 'tool/result', key: callOf }),
    ...checkScopes(events),
    ...checkResultOrder(events),
    ...checkInnerCalls(events),
    ...checkPromptBlobs(events),
  ];
}

/** Throws an Error listing every violation; returns quietly when there is none. */
export function assertSessionInvariants(events: readonly SessionEvent[]): void {
  const violations = checkSessionInvariants(events);
  if (violations.length > 0) {
    throw new Error(
      `session invariants violated:\n${violations.map((line) => `- ${line}`).join('\n')}`,
    );
  }
}
