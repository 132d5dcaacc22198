/**
 * A session's turns as rewinding sees them: each turn's number (from 1), id, first prompt and
 * the tree it began with. A turn's own first checkpoint is its start; a turn that made none
 * changed no file through Loom's tools, so it began as the next checkpoint after it found the
 * workspace; after the last checkpoint, the state is the workspace as it is now (`undefined`).
 * Pure: reads events, touches nothing.
 */
import { UserError } from '../base/errors.js';
import type { SessionEvent } from '../core/session-events.js';

export interface SessionTurn {
  /** 1 for the session's first turn. */
  number: number;
  /** `turn-N`, as its events name it. */
  id: string;
  /** The index of its `turn/start` in the session's events. */
  startIndex: number;
  /** Its first user message, on one line. */
  prompt: string;
  /** The tree of its own first checkpoint, when it made one. */
  checkpoint?: string;
}

export function sessionTurns(events: readonly SessionEvent[]): SessionTurn[] {
  const turns: SessionTurn[] = [];
  const byId = new Map<string, SessionTurn>();
  events.forEach((event, index) => {
    const data = event.data as unknown as Record<string, unknown>;
    if (event.type === 'turn/start') {
      const turn = {
        number: turns.length + 1,
        id: String(data.turnId),
        startIndex: index,
        prompt: '',
      };
      turns.push(turn);
      byId.set(turn.id, turn);
    } else if (event.type === 'user/message') {
      const turn = byId.get(String(data.turnId));
      if (turn && turn.prompt === '') turn.prompt = String(data.text).replace(/\s+/g, ' ').trim();
    } else if (event.type === 'checkpoint/create') {
      const turn = byId.get(String(data.turn));
      if (turn && turn.checkpoint === undefined) turn.checkpoint = String(data.tree);
    }
  });
  return turns;
}

/** The tree `turn` began with: its own checkpoint, else the next one's; undefined: the workspace now. */
export function startTree(turns: readonly SessionTurn[], turn: SessionTurn): string | undefined {
  for (const later of turns.slice(turn.number - 1)) {
    if (later.checkpoint !== undefined) return later.checkpoint;
  }
  return undefined;
}

/** The session's first checkpoint: the workspace as the session first set out to change it. */
export function firstCheckpoint(events: readonly SessionEvent[]): string | undefined {
  const event = events.find((candidate) => candidate.type === 'checkpoint/create');
  return event ? String((event.data as unknown as Record<string, unknown>).tree) : undefined;
}

/** The turn `to` names: a number counting from 1, or a turn id `turn-N`. */
export function findTurn(
  turns: readonly SessionTurn[],
  to: string,
  sessionId: string,
): SessionTurn {
  const text = to.trim();
  const turn = /^\d+$/.test(text)
    ? turns[Number(text) - 1]
    : turns.find((candidate) => candidate.id === text);
  if (turn) return turn;
  const range =
    turns.length === 0
      ? 'it has no turns'
      : `its turns are 1 to ${turns.length} (or their ids, turn-N)`;
  throw new UserError(
    'REWIND_NO_TURN',
    `session ${sessionId} has no turn ${JSON.stringify(to)}: ${range}`,
  );
}
