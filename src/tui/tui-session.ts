/**
 * The session the terminal talks to, and the only place it acts on the runtime: sending a
 * message (a new turn when idle, a steer when busy), a follow-up, interrupting, and switching to
 * a new or a stored session of this workspace. Each session it opens gets the terminal's
 * permission asker; the one it leaves is closed, its children released.
 */
import { UserError } from '../base/errors.js';
import { compareText } from '../base/text-order.js';
import { type RewindOutcome, type RewindRequest, rewindSession } from '../checkpoint/rewind.js';
import { workspaceRepository } from '../checkpoint/session-changes.js';
import type { SessionTurn } from '../checkpoint/session-turns.js';
import type { LoomSetup } from '../cli/build-runtime.js';
import type { AgentHandle } from '../core/create-agent.js';
import { SessionStore, type SessionSummary } from '../core/session-store.js';
import { permissionAskerKey } from '../core/tool-execution.js';
import { realFolder } from '../core/workspace-folder.js';
import type { ImageReference } from '../llm/contract.js';
import type { InteractionBroker } from './interaction-broker.js';
import type { TuiStore } from './tui-store.js';

export const INTERRUPT_CAUSE = 'interrupted by the user';

export class TuiSession {
  private handle: AgentHandle;

  constructor(
    readonly setup: LoomSetup,
    private readonly broker: InteractionBroker,
    handle: AgentHandle,
  ) {
    // On the runtime's root, so a subagent's or a workflow child's `ask` reaches the person too.
    setup.runtime.root.provide(permissionAskerKey, broker.asker);
    broker.describeAsker = (agentId) =>
      agentId === this.sessionId ? undefined : `subagent ${agentId}`;
    this.handle = this.prepare(handle);
  }

  get current(): AgentHandle {
    return this.handle;
  }

  get sessionId(): string {
    return this.handle.log.header.sessionId;
  }

  /** A new turn when the agent is idle; otherwise joins the running turn at its next step. */
  send(text: string, images: ImageReference[] = []): 'turn' | 'steer' {
    const { agent } = this.handle;
    const options = images.length > 0 ? { images } : {};
    if (agent.status === 'idle') {
      void agent.prompt(text, options);
      return 'turn';
    }
    agent.steer(text, options);
    return 'steer';
  }

  /** Delivered as a turn of its own once the running one ends. */
  followup(text: string, images: ImageReference[] = []): void {
    this.handle.agent.followup(text, images.length > 0 ? { images } : {});
  }

  /** Ends the running turn as interrupted; queued messages are kept. */
  interrupt(): void {
    this.handle.agent.cancel(INTERRUPT_CAUSE, { keepInbox: true });
  }

  /** Leaves this session for a new one, or for stored session `id` of this workspace. */
  async switchTo(store: TuiStore, id?: string): Promise<void> {
    const runtime = this.setup.runtime;
    const next = id === undefined ? runtime.start() : runtime.resume(id);
    await this.leave();
    this.handle = this.prepare(next);
    store.attach(this.handle);
  }

  /**
   * Rewinds to the state as `turn` began (checkpoint/rewind.ts): the files restored in place, the
   * conversation forked into a new session that the terminal then goes on in (the one left stays
   * whole). Refused while a turn runs. `note` hears of a crash's restore finished first.
   */
  async rewind(
    store: TuiStore,
    turn: SessionTurn,
    request: RewindRequest,
    note: (line: string) => void,
  ): Promise<RewindOutcome> {
    const { log, agent } = this.handle;
    if (agent.status !== 'idle') {
      throw new UserError(
        'INVALID_ARGUMENT',
        '/rewind waits for an idle session: a turn is running (esc interrupts it)',
      );
    }
    const files = request.files
      ? await workspaceRepository(this.setup.runtime.home, log.header, {
          conversationOnly: 'choose "conversation" to rewind only the conversation',
          onFinished: note,
        })
      : undefined;
    const outcome = await rewindSession({
      log,
      store: this.setup.runtime.store,
      repository: files?.repository,
      turn,
      request,
      ...(files?.before !== undefined ? { before: files.before } : {}),
    });
    if (outcome.forkedSession !== undefined) await this.switchTo(store, outcome.forkedSession);
    return outcome;
  }

  /** The root sessions of this workspace, the one used last first. */
  storedSessions(): SessionSummary[] {
    return workspaceSessions(this.setup.runtime.home, this.setup.runtime.cwd);
  }

  /** Cancels what runs, releases children and closes the session's log. */
  async close(): Promise<void> {
    await this.leave();
    this.setup.jobs.service.abandonAll('the terminal closed');
  }

  private prepare(handle: AgentHandle): AgentHandle {
    this.broker.clearRules();
    return handle;
  }

  private async leave(): Promise<void> {
    const children = this.setup.subagents.services.children;
    const { handle, sessionId } = this;
    children.cancelTree(sessionId, 'the session was left');
    await handle.agent.whenIdle();
    children.releaseUnder(sessionId);
    handle.close();
  }
}

/**
 * The sessions a person started in `cwd` (compared by real path), the one used last first (its
 * last event), so `--continue` reopens the session worked in last, not the one created last.
 */
export function workspaceSessions(home: string, cwd: string): SessionSummary[] {
  const workspace = realFolder(cwd);
  return new SessionStore(home)
    .list()
    .filter((summary) => summary.workspace === workspace && summary.delegationDepth === 0)
    .reverse()
    .sort((left, right) => compareText(right.lastUsed, left.lastUsed));
}
