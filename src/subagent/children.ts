/**
 * Continuable children: who owns whom, notices to parents, messages and interrupts from the
 * direct parent (or the user) only, and cold resume of a settled child from its persisted
 * session. The agent's inbox is the only queue; a child's state is read from its agent, never
 * kept twice. Release is child-first, cancellation top-down.
 */

import { compareText } from '../base/text-order.js';
import { agentTurnEnd, type TurnOutcome } from '../core/agent-hooks.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { isEvent, type SessionEvent, type SessionHeader } from '../core/session-events.js';
import { loadSessionFile } from '../core/session-load.js';
import { type ChildDescriptor, SubagentError } from './contract.js';
import { persistedChildren } from './persisted-children.js';

export type ChildState = 'running' | 'idle' | 'stopped';

export interface ChildSummary {
  id: string;
  description: string;
  state: ChildState;
  lastOutcome?: TurnOutcome['reason'];
}

/** The caller of a message or interrupt: an agent's session, or the human at the terminal. */
export type ChildCaller = { sessionId: string } | 'user';

interface ChildEntry {
  id: string;
  parentSession: string | null;
  /** The session header's creation time: children are listed oldest first. */
  created: string;
  descriptor: ChildDescriptor;
  handle: AgentHandle | undefined;
  lastOutcome?: TurnOutcome['reason'];
}

/** Re-applies a descriptor's parts (tool filter, instructions, report tool) to a fresh activation. */
export type ChildPreparer = (handle: AgentHandle, descriptor: ChildDescriptor) => void;

export class ChildRegistry {
  private readonly runtime: AgentRuntime;
  private readonly entries = new Map<string, ChildEntry>();
  private readonly prepare: ChildPreparer;
  private settleWaiters: Array<() => void> = [];
  private readonly quiet = new Set<string>();
  /** Parents whose children of earlier processes have been read from disk. */
  private readonly searchedParents = new Set<string>();

  constructor(runtime: AgentRuntime, prepare: ChildPreparer) {
    this.runtime = runtime;
    this.prepare = prepare;
  }

  /** Takes a freshly started continuable child into the ownership graph. */
  adopt(handle: AgentHandle, descriptor: ChildDescriptor): void {
    const id = handle.log.header.sessionId;
    const entry: ChildEntry = {
      id,
      parentSession: handle.log.header.parentSession,
      created: handle.log.header.created,
      descriptor,
      handle,
    };
    this.entries.set(id, entry);
    this.watch(entry, handle);
  }

  /**
   * Continuable children of `parentSession`, oldest first: those this process runs or ran, and
   * those earlier processes left on disk (stopped until a message cold-resumes them).
   */
  childrenOf(parentSession: string): ChildSummary[] {
    this.readPersistedChildren(parentSession);
    return [...this.entries.values()]
      .filter((entry) => entry.parentSession === parentSession)
      .sort((left, right) => compareText(left.created, right.created))
      .map((entry) => ({
        id: entry.id,
        description: entry.descriptor.description,
        state: this.stateOf(entry),
        ...(entry.lastOutcome ? { lastOutcome: entry.lastOutcome } : {}),
      }));
  }

  /** Running descendants of `sessionId` (children, their children, …). */
  runningUnder(sessionId: string): number {
    let count = 0;
    for (const entry of this.entries.values()) {
      if (entry.parentSession !== sessionId) continue;
      if (this.stateOf(entry) === 'running') count += 1;
      count += this.runningUnder(entry.id);
    }
    return count;
  }

  /** Resolves at the next settlement of any child's turn. */
  nextSettlement(): Promise<void> {
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  /**
   * Resolves once the agent is idle and owns no running descendant: a parent cannot settle
   * while its children still work, and each child's notice may wake it again.
   */
  async whenSettled(handle: AgentHandle): Promise<void> {
    const id = handle.log.header.sessionId;
    while (true) {
      await handle.agent.whenIdle();
      if (handle.agent.status !== 'idle') continue;
      if (this.runningUnder(id) === 0) return;
      await this.nextSettlement();
    }
  }

  /**
   * The next settled-turn notice of `childId` is not sent: someone else reports that turn (a
   * background job reports a child's first turn itself). Call it before that turn can end.
   */
  skipNextNotice(childId: string): void {
    this.quiet.add(childId);
  }

  /** Queues `message` into the child, waking it; a stopped child is cold-resumed first. */
  sendMessage(caller: ChildCaller, childId: string, message: string): ChildSummary {
    const entry = this.authorized(caller, childId);
    const handle = entry.handle ?? this.coldResume(entry);
    handle.agent.followup(message);
    return { id: entry.id, description: entry.descriptor.description, state: this.stateOf(entry) };
  }

  /** Cancels the child's current turn but keeps its queued messages; a child not running is left alone. */
  interrupt(caller: ChildCaller, childId: string, cause = 'interrupted by its parent'): ChildState {
    const entry = this.authorized(caller, childId);
    if (entry.handle?.agent.status === 'running')
      entry.handle.agent.cancel(cause, { keepInbox: true });
    return this.stateOf(entry);
  }

  /** Cancels `sessionId`'s agent, then its descendants, top-down. */
  cancelTree(sessionId: string, cause: string): void {
    const live = this.runtime.find(sessionId);
    if (live?.agent.status === 'running') live.agent.cancel(cause);
    for (const entry of this.entries.values()) {
      if (entry.parentSession === sessionId) this.cancelTree(entry.id, cause);
    }
  }

  /** Closes the descendants of `sessionId`, deepest first; the caller closes `sessionId` itself. */
  releaseUnder(sessionId: string): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.parentSession !== sessionId) continue;
      this.releaseUnder(entry.id);
      entry.handle?.close();
      entry.handle = undefined;
    }
  }

  private stateOf(entry: ChildEntry): ChildState {
    if (!entry.handle) return 'stopped';
    return entry.handle.agent.status === 'running' ? 'running' : 'idle';
  }

  private watch(entry: ChildEntry, handle: AgentHandle): void {
    handle.context.on(agentTurnEnd, ({ outcome }) => {
      entry.lastOutcome = outcome.reason;
      this.notifyParent(entry, outcome);
      const waiters = this.settleWaiters;
      this.settleWaiters = [];
      for (const resolve of waiters) resolve();
    });
    handle.onClose(() => {
      if (entry.handle === handle) entry.handle = undefined;
    });
  }

  /**
   * A settled turn wakes the parent with a follow-up; an aborted one was stopped by the parent or
   * the user, who need no waking, so its notice waits quietly for the parent's next turn.
   */
  private notifyParent(entry: ChildEntry, outcome: TurnOutcome): void {
    if (this.quiet.delete(entry.id)) return;
    if (!entry.parentSession) return;
    const parent = this.runtime.find(entry.parentSession);
    if (!parent) return;
    const notice = settledNotice(entry, outcome);
    if (outcome.reason === 'aborted') parent.agent.inject(notice, { source: 'subagent' });
    else parent.agent.followup(notice, { source: 'subagent' });
  }

  private authorized(caller: ChildCaller, childId: string): ChildEntry {
    const entry = this.entries.get(childId) ?? this.inspect(childId);
    if (caller !== 'user' && entry.parentSession !== caller.sessionId) {
      throw new SubagentError(
        'NOT_AUTHORIZED',
        `only the direct parent of ${childId} may message or interrupt it; ${caller.sessionId} is not its parent`,
      );
    }
    return entry;
  }

  /** Takes in the continuable children of `parentSession` that earlier processes persisted. */
  private readPersistedChildren(parentSession: string): void {
    if (this.searchedParents.has(parentSession)) return;
    this.searchedParents.add(parentSession);
    for (const child of persistedChildren(this.runtime.store.directory, parentSession)) {
      if (this.entries.has(child.id)) continue;
      try {
        this.inspect(child.id);
      } catch (error) {
        // A one-shot child cannot be messaged, so it is not listed; anything else is a fault.
        if (!(error instanceof SubagentError)) throw error;
      }
    }
  }

  /** Reads a child that this process has not seen (after a restart) from its session file. */
  private inspect(childId: string): ChildEntry {
    let events: SessionEvent[];
    let header: SessionHeader;
    try {
      const loaded = loadSessionFile(this.runtime.store.pathOf(childId));
      events = loaded.events;
      header = loaded.header;
    } catch {
      throw new SubagentError('UNKNOWN_AGENT', `no subagent ${childId}`);
    }
    const descriptor = events.find((event) => event.type === 'subagent/descriptor');
    if (!descriptor || !(descriptor.data as ChildDescriptor).continuable) {
      throw new SubagentError('UNKNOWN_AGENT', `${childId} is not a continuable subagent`);
    }
    const lastEnd = events.findLast((event): event is SessionEvent<'turn/end'> =>
      isEvent(event, 'turn/end'),
    );
    const entry: ChildEntry = {
      id: childId,
      parentSession: header.parentSession,
      created: header.created,
      descriptor: descriptor.data as ChildDescriptor,
      handle: undefined,
      ...(lastEnd ? { lastOutcome: lastEnd.data.reason } : {}),
    };
    this.entries.set(childId, entry);
    return entry;
  }

  private coldResume(entry: ChildEntry): AgentHandle {
    const { descriptor } = entry;
    const handle = this.runtime.resume(entry.id, {
      ...(descriptor.model ? { model: descriptor.model } : {}),
      ...(descriptor.persona !== undefined ? { persona: descriptor.persona } : {}),
      ...(descriptor.effort !== undefined ? { limits: { effort: descriptor.effort } } : {}),
      ...(descriptor.workspace !== undefined ? { workspace: descriptor.workspace } : {}),
    });
    this.prepare(handle, descriptor);
    entry.handle = handle;
    this.watch(entry, handle);
    return handle;
  }
}

export function settledNotice(
  entry: { id: string; descriptor: ChildDescriptor },
  outcome: TurnOutcome,
): string {
  const label = entry.descriptor.description ? ` (${entry.descriptor.description})` : '';
  const status = outcome.reason === 'completed' ? 'finished' : `stopped: ${outcome.reason}`;
  const detail = outcome.reason === 'error' ? `\n${outcome.error.message}` : '';
  const body = outcome.text ? `\n${outcome.text}` : '';
  return `[subagent ${entry.id}${label} ${status}]${detail}${body}`;
}
