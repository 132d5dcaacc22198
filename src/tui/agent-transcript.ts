/**
 * Another agent's transcript (a workflow agent, a child): folded from its live log while this
 * process runs it, else from its session file. Also the tokens and age of sessions listed in the
 * views, counted incrementally so a refresh reads only events it has not seen. Reads only: it
 * never writes a log and never resumes a session.
 */

import { errorMessage } from '../base/errors.js';
import type { AgentHandle } from '../core/create-agent.js';
import { requestSpend } from '../core/request-spend.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionEvent } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import type { TranscriptItem } from './contract.js';
import { TranscriptFold } from './transcript-fold.js';

export interface AgentTranscript {
  /** Finished items, then what is still changing. */
  items(): TranscriptItem[];
  /** Why the transcript could not be read, if it could not. */
  readonly problem: string | undefined;
  dispose(): void;
}

/** Opens `sessionId`'s transcript; `onChange` is called after each event a live agent appends. */
export function openAgentTranscript(
  runtime: AgentRuntime,
  sessionId: string,
  onChange: () => void,
): AgentTranscript {
  const fold = new TranscriptFold();
  const items = () => [...fold.finished, ...fold.live];
  const live = runtime.find(sessionId);
  if (live) {
    for (const event of live.log.events) fold.apply(event);
    const detach = live.log.onAppend((event) => {
      fold.apply(event);
      onChange();
    });
    return { items, problem: undefined, dispose: detach };
  }
  try {
    for (const event of loadSessionFile(runtime.store.pathOf(sessionId)).events) fold.apply(event);
    return { items, problem: undefined, dispose: () => {} };
  } catch (error) {
    return { items, problem: errorMessage(error), dispose: () => {} };
  }
}

export interface SessionFigures {
  /** Input plus output tokens of every model response. */
  tokens: number;
  /** When the session was created (milliseconds since the epoch), if known. */
  createdAt: number | undefined;
}

interface Counted extends SessionFigures {
  /** Events of the live log already counted. */
  counted: number;
  /** Read from a file: final. */
  stored: boolean;
}

/** Tokens and age of sessions, counted once per event. */
export class SessionFiguresCache {
  private readonly cache = new Map<string, Counted>();

  constructor(private readonly runtime: AgentRuntime) {}

  /** Figures of a session this process runs now; undefined (and nothing read) otherwise. */
  ofLive(sessionId: string): SessionFigures | undefined {
    const live = this.runtime.find(sessionId);
    if (!live) return undefined;
    const known = this.cache.get(sessionId);
    return this.count(sessionId, live, known?.stored ? undefined : known);
  }

  of(sessionId: string): SessionFigures {
    const live = this.runtime.find(sessionId);
    const known = this.cache.get(sessionId);
    if (live) return this.count(sessionId, live, known?.stored ? undefined : known);
    // A live agent that has closed since is read once more from its file, for its final figures.
    if (known?.stored) return known;
    const figures: Counted = { tokens: 0, createdAt: undefined, counted: 0, stored: true };
    try {
      const loaded = loadSessionFile(this.runtime.store.pathOf(sessionId));
      figures.createdAt = Date.parse(loaded.header.created);
      for (const event of loaded.events) figures.tokens += tokensOf(event);
    } catch {
      // An unreadable session shows no figures; its row still shows its id and state.
    }
    this.cache.set(sessionId, figures);
    return figures;
  }

  private count(
    sessionId: string,
    handle: AgentHandle,
    known: Counted | undefined,
  ): SessionFigures {
    const figures = known ?? {
      tokens: 0,
      createdAt: Date.parse(handle.log.header.created),
      counted: 0,
      stored: false,
    };
    const events = handle.log.events;
    for (let index = figures.counted; index < events.length; index++) {
      figures.tokens += tokensOf(events[index] as SessionEvent);
    }
    figures.counted = events.length;
    this.cache.set(sessionId, figures);
    return figures;
  }
}

function tokensOf(event: SessionEvent): number {
  const spend = requestSpend(event);
  return spend ? spend.usage.input + spend.usage.output : 0;
}
