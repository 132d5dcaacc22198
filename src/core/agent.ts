/**
 * The agent handle: one session, one inbox, at most one running turn. `followup` queues a
 * message that gets its own turn (and wakes an idle agent), `steer` joins the running turn at its
 * next step, `inject` waits for the next turn without waking anyone. The agent owns its turn's
 * cancellation; `cancel` never throws and never loses a logged event.
 */
import type { ImageReference, ModelClient } from '../llm/contract.js';
import {
  type AgentStatus,
  agentMessageQueued,
  agentStatus,
  agentTurnEnd,
  type MessageQueued,
  type TurnOutcome,
} from './agent-hooks.js';
import type { Context } from './context.js';
import { MessageProjection } from './messages.js';
import type { Delivery } from './session-events.js';
import type { SessionLog } from './session-log.js';
import type { SystemPrompt } from './system-prompt.js';
import type { ToolPipeline } from './tool-pipeline.js';
import { type IncomingMessage, runTurn } from './turn.js';
import type { TurnLimits } from './turn-environment.js';

export interface AgentOptions {
  /** The agent's own scope; its id labels the agent's registrations. */
  context: Context;
  log: SessionLog;
  model: ModelClient;
  tools: ToolPipeline;
  prompt: SystemPrompt;
  /** Default: 50 steps a turn. */
  limits?: Partial<TurnLimits>;
}

export const DEFAULT_MAX_STEPS = 50;

export interface MessageOptions {
  /** Where it came from when not from the human: `job`, `subagent`, … (logged as is). */
  source?: string;
  /** The sender's number for it, logged with it (a goal's round). */
  round?: number;
  /** Images attached to it, already in the blob store (`keepImage`); logged by hash. */
  images?: ImageReference[];
  /**
   * Asked when a follow-up is about to start its turn; `false` drops it unlogged (a reservation
   * that went stale while it waited). Must not throw. Only follow-ups are asked.
   */
  admit?: () => boolean;
}

interface QueuedMessage {
  text: string;
  source?: string;
  round?: number;
  images?: ImageReference[];
  admit?: () => boolean;
}

interface QueuedFollowup extends QueuedMessage {
  settle?: (outcome: TurnOutcome) => void;
}

function queued(text: string, options: MessageOptions): QueuedMessage {
  const message: QueuedMessage = { text };
  if (options.source !== undefined) message.source = options.source;
  if (options.round !== undefined) message.round = options.round;
  if (options.images !== undefined && options.images.length > 0) message.images = options.images;
  if (options.admit !== undefined) message.admit = options.admit;
  return message;
}

/** What the turn logs of a queued message: its text, sender, number and images. */
function logged(message: QueuedMessage): {
  text: string;
  source?: string;
  round?: number;
  images?: ImageReference[];
} {
  const { admit: _admit, ...rest } = message;
  return rest;
}

export class Agent {
  readonly id: string;
  readonly context: Context;
  readonly log: SessionLog;
  private readonly options: AgentOptions;
  private readonly projection = new MessageProjection();
  private readonly limits: TurnLimits;
  private followups: QueuedFollowup[] = [];
  private steering: QueuedMessage[] = [];
  private injected: QueuedMessage[] = [];
  private currentStatus: AgentStatus = 'idle';
  private turnController: AbortController | undefined;
  private idleWaiters: Array<() => void> = [];
  private currentModel: ModelClient;

  constructor(options: AgentOptions) {
    this.options = options;
    this.context = options.context;
    this.log = options.log;
    this.id = options.log.header.sessionId;
    this.limits = { maxSteps: DEFAULT_MAX_STEPS, ...options.limits };
    this.currentModel = options.model;
  }

  get status(): AgentStatus {
    return this.currentStatus;
  }

  get model(): ModelClient {
    return this.currentModel;
  }

  /** Answers from the next turn on; a running turn keeps the model it started with. */
  setModel(model: ModelClient): void {
    this.currentModel = model;
  }

  /** Messages waiting for a turn, by delivery. */
  get inbox(): { followup: number; steer: number; inject: number } {
    return {
      followup: this.followups.length,
      steer: this.steering.length,
      inject: this.injected.length,
    };
  }

  followup(text: string, options: MessageOptions = {}): void {
    this.followups.push(queued(text, options));
    this.announce('followup', options);
    this.wake();
  }

  /** Joins the running turn at its next step; an idle agent takes it as a follow-up. */
  steer(text: string, options: MessageOptions = {}): void {
    if (this.currentStatus === 'idle') {
      this.followup(text, options);
      return;
    }
    this.steering.push(queued(text, options));
    this.announce('steer', options);
  }

  inject(text: string, options: MessageOptions = {}): void {
    this.injected.push(queued(text, options));
    this.announce('inject', options);
  }

  /**
   * Queues `text` (with `images`, already in the blob store) as a follow-up and resolves with that
   * turn's outcome; never rejects.
   */
  prompt(text: string, options: { images?: ImageReference[] } = {}): Promise<TurnOutcome> {
    return new Promise((resolve) => {
      this.followups.push({ ...queued(text, options), settle: resolve });
      this.announce('followup', {});
      this.wake();
    });
  }

  /**
   * Aborts the running turn, which ends as `aborted`. Queued messages are dropped unless
   * `keepInbox`; a dropped `prompt()` still resolves, as an aborted outcome with no steps.
   */
  cancel(cause = 'cancelled', options: { keepInbox?: boolean } = {}): void {
    if (!options.keepInbox) {
      const dropped = this.followups;
      this.followups = [];
      this.steering = [];
      this.injected = [];
      for (const followup of dropped) {
        followup.settle?.({
          turnId: '',
          reason: 'aborted',
          text: '',
          usage: { input: 0, output: 0 },
          steps: 0,
        });
      }
    }
    this.turnController?.abort(new Error(cause));
  }

  /** Resolves once no turn runs and no follow-up waits. */
  whenIdle(): Promise<void> {
    if (this.currentStatus === 'idle' && this.followups.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wake(): void {
    if (this.currentStatus === 'running') return;
    this.setStatus('running');
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    while (this.followups.length > 0) {
      const next = this.followups.shift() as QueuedFollowup;
      if (next.admit && !next.admit()) {
        // No turn runs now, so what was sent to steer one becomes a turn of its own.
        for (const leftover of this.takeSteering()) this.followups.push(leftover);
        continue;
      }
      // Grown by push, neither mapped nor spread: an optimised `map` makes a holey array, and
      // V8 keeps `drain` and `runTurn` optimised only while every turn's array has one kind.
      const incoming: IncomingMessage[] = [];
      for (const message of this.injected) {
        incoming.push({ ...logged(message), delivery: 'inject' });
      }
      incoming.push({ ...logged(queued(next.text, next)), delivery: 'followup' });
      this.injected = [];
      const controller = new AbortController();
      this.turnController = controller;
      const outcome = await runTurn(
        {
          agentId: this.id,
          context: this.context,
          log: this.log,
          model: this.currentModel,
          tools: this.options.tools,
          prompt: this.options.prompt,
          projection: this.projection,
          limits: this.limits,
          takeSteering: () => this.takeSteering(),
        },
        incoming,
        controller.signal,
      );
      this.turnController = undefined;
      this.context.emit(agentTurnEnd, { agentId: this.id, outcome });
      next.settle?.(outcome);
      for (const leftover of this.takeSteering()) this.followups.push(leftover);
    }
    this.setStatus('idle');
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private takeSteering(): QueuedMessage[] {
    const taken = this.steering;
    this.steering = [];
    return taken;
  }

  private announce(delivery: Delivery, options: MessageOptions): void {
    const payload: MessageQueued = { agentId: this.id, delivery };
    if (options.source !== undefined) payload.source = options.source;
    this.context.emit(agentMessageQueued, payload);
  }

  private setStatus(status: AgentStatus): void {
    if (this.currentStatus === status) return;
    this.currentStatus = status;
    this.context.emit(agentStatus, { agentId: this.id, status });
  }
}
