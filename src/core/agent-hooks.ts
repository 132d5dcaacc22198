/**
 * The hooks an agent dispatches on its context scope. `agent/status`, `agent/message-queued`,
 * `agent/turn-end` and `agent/asks-user` are observe-only; `agent/turn-stopping` is serial and
 * runs before `turn/end` is logged, so a capability (structured output, goals) may change how
 * the turn ends; its handlers own no cancellation (the turn's signal is already settled).
 * `agent/turn-starting`, `agent/turn-continuing` and `agent/compacting` are serial points a
 * capability (a project's hooks) may wait at; they carry the signal to honour where one runs.
 */
import type { ImageReference, Usage } from '../llm/contract.js';
import { defineEmit, defineSerial } from './context.js';
import type { Delivery, TurnEndReason, TurnError } from './session-events.js';

export type AgentStatus = 'idle' | 'running';

/** How a turn ended; only an `error` ending carries an error. */
export type TurnEnding =
  | { reason: Exclude<TurnEndReason, 'error'> }
  | { reason: 'error'; error: TurnError };

export type TurnOutcome = TurnEnding & {
  turnId: string;
  /** The last assistant text of the turn. */
  text: string;
  usage: Usage;
  steps: number;
};

export interface TurnStoppingInput {
  agentId: string;
  turnId: string;
  /** Whether a tool called `concludeTurn()` during the turn. */
  concluded: boolean;
}

/** A message joined the agent's inbox; `source` is absent for the human's own. */
export interface MessageQueued {
  agentId: string;
  delivery: Delivery;
  source?: string;
}

export const agentMessageQueued = defineEmit<MessageQueued>('agent/message-queued');
export const agentStatus = defineEmit<{ agentId: string; status: AgentStatus }>('agent/status');
export const agentTurnStopping = defineSerial<TurnStoppingInput, TurnEnding>('agent/turn-stopping');
export const agentTurnEnd = defineEmit<{ agentId: string; outcome: TurnOutcome }>('agent/turn-end');

/** A message a turn starts with, as the agent queued it. */
export interface TurnMessage {
  text: string;
  delivery: Delivery;
  /** Absent for the human; otherwise who sent it (`job`, `subagent`, …). */
  source?: string;
  /** The sender's number for it (a goal's round). */
  round?: number;
  /** Images attached to it, already in the blob store. */
  images?: ImageReference[];
}

export interface TurnStartingInput {
  agentId: string;
  turnId: string;
  /** The turn's signal: a handler that starts work should stop it once this aborts. */
  signal: AbortSignal;
}

/** What a turn starts with: its messages (a handler may add some), or a refusal that ends it. */
export type TurnAdmission =
  | { kind: 'start'; messages: readonly TurnMessage[] }
  | { kind: 'refused'; error: TurnError };

export interface TurnContinuingInput {
  agentId: string;
  turnId: string;
  /** The model's last answer, which would end the turn. */
  text: string;
  /** How often this turn has already been continued by this hook. */
  continued: number;
  signal: AbortSignal;
}

/** A message that keeps the turn going (logged as a `steer` from `source`); none ends it. */
export interface TurnContinuation {
  text: string;
  source: string;
}

export interface CompactingInput {
  agentId: string;
  trigger: 'auto' | 'manual' | 'overflow';
  /** A manual compaction's instructions, when given. */
  instructions?: string;
  /** Aborted when the request that compacts is cancelled. */
  signal?: AbortSignal;
}

/** The agent is about to wait for the human: an approval, a question or a plan to review. */
export interface AsksUserPayload {
  agentId: string;
  kind: 'approval' | 'question' | 'plan-review';
  /** One line saying what is asked. */
  message: string;
}

/**
 * Before a turn's messages are logged (after `turn/start`): handlers may add messages or refuse
 * the turn, which then ends as an error with no step and its messages unlogged. Must not throw;
 * a throw ends the turn as `INTERNAL`.
 */
export const agentTurnStarting = defineSerial<TurnStartingInput, TurnAdmission>(
  'agent/turn-starting',
);
/**
 * When the model answers without calling a tool, before the turn ends: a continuation keeps it
 * going (the step limit still holds). Not asked when a tool concluded the turn or the answer
 * was cut at its token limit.
 */
export const agentTurnContinuing = defineSerial<TurnContinuingInput, TurnContinuation | undefined>(
  'agent/turn-continuing',
);
/** Awaited before a compaction of the agent's view starts; the value is unused. */
export const agentCompacting = defineSerial<CompactingInput, undefined>('agent/compacting');
export const agentAsksUser = defineEmit<AsksUserPayload>('agent/asks-user');
