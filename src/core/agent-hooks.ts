/**
 * The hooks an agent dispatches on its context scope. `agent/status`, `agent/message-queued` and
 * `agent/turn-end` are observe-only; `agent/turn-stopping` is serial and runs before `turn/end` is logged, so a
 * capability (structured output, goals) may change how the turn ends. Handlers own no
 * cancellation: the turn's signal is already settled when they run.
 */
import type { Usage } from '../llm/contract.js';
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
