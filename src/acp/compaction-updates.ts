/**
 * Loom's compaction events as ACP `compaction_update` upserts, only for a client that advertised
 * the `session.compaction` capability (ACP forbids them otherwise; such a client gets none): a
 * summarization that starts is `in_progress`, its `context/compact` `completed` with the summary
 * as content, its `context/compact-skipped` `failed` (or `cancelled` when the summary would
 * simply not have been smaller). A compaction no summarization announced (pruning) is one
 * `completed` upsert. Loom's figures ride in `_meta.loom`. Mapping only: it keeps which
 * summarization is open, and never touches the log or the connection.
 */
import type { ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk';
import { contextCompactLine, contextSkippedLine } from '../context/context-lines.js';
import type {
  CompactTrigger,
  ContextCompactEvent,
  ContextCompactSkippedEvent,
  ContextSummarizingEvent,
  SummarizedSpan,
} from '../context/contract.js';
import type { SessionEvent } from '../core/session-events.js';

/** Whether the client takes `compaction_update` (`session.compaction` present and not null). */
export function advertisesCompaction(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.session?.compaction != null;
}

/** A summarization that started and has not ended yet. */
export interface OpenCompaction {
  id: string;
  through: number;
  before: number;
  trigger: CompactTrigger;
}

/** One session's compactions as the mapping follows them. */
export interface CompactionTrack {
  open?: OpenCompaction;
}

/**
 * Loom's figures of a compaction, under the `loom` key as a tool call's are. A type, not an
 * interface: ACP's `_meta` wants an object with an index signature. Each update carries all of
 * them, since ACP replaces a compaction's `_meta` with each update's.
 */
export type LoomCompactionMeta = {
  loom: {
    trigger: CompactTrigger;
    /** The `seq` of the last event the compaction covers. */
    through: number;
    /** Tokens of the request before, and after (a compaction) or as it would have been (skipped). */
    before: number;
    after?: number;
    wouldBe?: number;
    /** How many tool results were replaced by stubs. */
    pruned?: number;
    summarized?: SummarizedSpan;
  };
};

type CompactionUpdate = Extract<SessionUpdate, { sessionUpdate: 'compaction_update' }>;

/**
 * Named after the event that opened it (its summarizing event, else the compaction itself):
 * a `seq` is unique in a log, where two compactions may cover the same `through`.
 */
function compactionIdOf(seq: number): string {
  return `compaction-${seq}`;
}

function update(
  compactionId: string,
  fields: Omit<CompactionUpdate, 'sessionUpdate' | 'compactionId' | '_meta'>,
  meta: LoomCompactionMeta['loom'],
): CompactionUpdate {
  return { sessionUpdate: 'compaction_update', compactionId, ...fields, _meta: { loom: meta } };
}

function started(seq: number, data: ContextSummarizingEvent, track: CompactionTrack) {
  const { through, before, trigger } = data;
  const open = { id: compactionIdOf(seq), through, before, trigger };
  track.open = open;
  return update(open.id, { status: 'in_progress' }, { trigger, through, before });
}

function completed(seq: number, data: ContextCompactEvent, track: CompactionTrack) {
  // The compaction its summarization announced, else one of its own (pruning alone).
  const open = track.open?.through === data.through ? track.open : undefined;
  if (open) delete track.open;
  // Pruning alone has no summary: what it did, in the line the terminal shows.
  const summary = data.summary.length > 0 ? data.summary : contextCompactLine(data);
  return update(
    open?.id ?? compactionIdOf(seq),
    { status: 'completed', summary: [{ type: 'text', text: summary }] },
    {
      trigger: data.trigger,
      through: data.through,
      before: data.before,
      after: data.after,
      pruned: data.pruned.length,
      ...(data.summarized ? { summarized: data.summarized } : {}),
    },
  );
}

function skipped(data: ContextCompactSkippedEvent, track: CompactionTrack) {
  // A skipped pruning was never announced, so it has no compaction to end.
  const open = track.open;
  if (!open) return undefined;
  delete track.open;
  return update(
    open.id,
    data.reason !== undefined
      ? { status: 'failed', error: data.reason }
      : { status: 'cancelled', error: contextSkippedLine(data) },
    { trigger: open.trigger, through: open.through, before: data.before, wouldBe: data.wouldBe },
  );
}

/** The upsert a compaction event streams as, or undefined for any other event. */
export function compactionUpdateOf(
  event: SessionEvent,
  track: CompactionTrack,
): CompactionUpdate | undefined {
  switch (event.type) {
    case 'context/summarizing':
      return started(event.seq, event.data as ContextSummarizingEvent, track);
    case 'context/compact':
      return completed(event.seq, event.data as ContextCompactEvent, track);
    case 'context/compact-skipped':
      return skipped(event.data as ContextCompactSkippedEvent, track);
    default:
      return undefined;
  }
}

/**
 * A stored summarization no compaction or skip ended: the process that ran it died (a session
 * this connection is still summarizing gets its live upsert after this one).
 */
export function unfinishedCompactionUpdate(open: OpenCompaction): CompactionUpdate {
  return update(
    open.id,
    { status: 'cancelled', error: 'the summarization did not finish' },
    { trigger: open.trigger, through: open.through, before: open.before },
  );
}

/**
 * A stored session's compactions for `session/load`: each once, in its final state, where it
 * first appeared in the history.
 */
export class ReplayedCompactions {
  private readonly track: CompactionTrack = {};
  private readonly positions = new Map<string, number>();

  /** Adds `event`'s upsert to `updates` (or replaces its compaction's earlier one). */
  add(event: SessionEvent, updates: SessionUpdate[]): void {
    if (event.type === 'context/summarizing' && this.track.open) this.abandon(updates);
    const upsert = compactionUpdateOf(event, this.track);
    if (upsert) this.place(upsert, updates);
  }

  /** Ends what the history left open; call once, after the last event. */
  finish(updates: SessionUpdate[]): void {
    if (this.track.open) this.abandon(updates);
  }

  private abandon(updates: SessionUpdate[]): void {
    if (!this.track.open) return;
    this.place(unfinishedCompactionUpdate(this.track.open), updates);
    delete this.track.open;
  }

  private place(upsert: CompactionUpdate, updates: SessionUpdate[]): void {
    const at = this.positions.get(upsert.compactionId);
    if (at === undefined) {
      this.positions.set(upsert.compactionId, updates.length);
      updates.push(upsert);
    } else {
      updates[at] = upsert;
    }
  }
}
