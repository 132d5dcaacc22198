/**
 * The local session log of one ACP child: its one turn as Loom events, written from what the
 * remote agent streamed (`assistant/chunk` for text and thoughts, `tool/call` / `acp/tool-status`
 * / `tool/result` for its tool calls, then `assistant/message` and the turn's end). One step holds
 * the whole remote turn; tool results are logged in call order. Every start it writes gets its end,
 * also on cancel, error and a process exit. It never talks to the agent.
 */

import { randomUUID } from 'node:crypto';
import type { SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import type { TurnEndReason, TurnError } from '../core/session-events.js';
import { repairEvents } from '../core/session-load.js';
import type { SessionLog } from '../core/session-log.js';
import type { FinishReason, Usage } from '../llm/contract.js';

export type RemoteToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

declare module '../core/session-events.js' {
  interface SessionEventMap {
    /** The remote agent's session this child's turn ran in. */
    'acp/session': { provider: string; remoteSessionId: string; agent?: string };
    /** A remote tool call's status as the agent reported it. */
    'acp/tool-status': {
      turnId: string;
      step: number;
      callId: string;
      status: RemoteToolStatus;
      title?: string;
    };
  }
}

interface RemoteCall {
  name: string;
  content: string;
  result?: { content: string; isError: boolean };
}

const STEP = 1;

/** What a turn that ended reports back: its reason and the answer (the text after the last tool call). */
export interface ChildTurnEnd {
  reason: TurnEndReason;
  text: string;
}

export class AcpChildLog {
  readonly turnId = `turn-${randomUUID()}`;
  private readonly log: SessionLog;
  private readonly model: string;
  private readonly calls = new Map<string, RemoteCall>();
  /** Call ids in call order whose result is not logged yet. */
  private readonly unanswered: string[] = [];
  private answer = '';
  private ended = false;

  /** Opens the turn: `turn/start`, the prompt as `user/message`, `step/start`. */
  constructor(log: SessionLog, prompt: string, model: string) {
    this.log = log;
    this.model = model;
    const { turnId } = this;
    log.append('turn/start', { turnId });
    log.append('user/message', { text: prompt, delivery: 'followup', turnId });
    log.append('step/start', { turnId, step: STEP });
  }

  get sessionId(): string {
    return this.log.header.sessionId;
  }

  recordRemoteSession(provider: string, remoteSessionId: string, agent: string | undefined): void {
    if (this.ended) return;
    this.log.append('acp/session', {
      provider,
      remoteSessionId,
      ...(agent !== undefined ? { agent } : {}),
    });
  }

  /** Logs one `session/update`; kinds a child's history has no place for are left out. */
  record(update: SessionUpdate): void {
    if (this.ended) return;
    const { turnId } = this;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const text = contentText(update.content);
        if (text.length === 0) return;
        const kind = update.sessionUpdate === 'agent_message_chunk' ? 'text' : 'reasoning';
        if (kind === 'text') this.answer += text;
        this.log.append('assistant/chunk', { turnId, step: STEP, kind, text });
        return;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const { toolCallId } = update;
        let call = this.calls.get(toolCallId);
        if (!call) {
          call = { name: remoteToolName(update), content: '' };
          this.calls.set(toolCallId, call);
          this.unanswered.push(toolCallId);
          // The answer is what the agent says after its last tool call.
          this.answer = '';
          this.log.append('tool/call', {
            turnId,
            step: STEP,
            callId: toolCallId,
            name: call.name,
            arguments: update.rawInput ?? {},
          });
        }
        if (update.content) call.content = toolContentText(update.content);
        const status = update.status ?? (update.sessionUpdate === 'tool_call' ? 'pending' : null);
        if (!status || call.result) return;
        this.log.append('acp/tool-status', {
          turnId,
          step: STEP,
          callId: toolCallId,
          status,
          ...(update.title ? { title: update.title } : {}),
        });
        if (status === 'completed' || status === 'failed') {
          call.result = { content: call.content, isError: status === 'failed' };
          this.logAnsweredResults();
        }
        return;
      }
      default:
        return;
    }
  }

  /** Closes the turn; the answer is the text the agent wrote after its last tool call. */
  finish(reason: TurnEndReason, error?: TurnError, usage: Usage = { input: 0, output: 0 }): string {
    if (this.ended) return this.answer;
    const { turnId } = this;
    for (const callId of this.unanswered) {
      const call = this.calls.get(callId);
      if (call && !call.result) {
        call.result = {
          content: `the remote agent did not report an end of this call (its turn ended: ${reason})`,
          isError: true,
        };
      }
    }
    this.logAnsweredResults();
    const finishReason = finishReasonOf(reason);
    this.log.append('assistant/message', {
      turnId,
      step: STEP,
      text: this.answer,
      toolCalls: [],
      finishReason,
      usage,
      model: this.model,
      attempts: 1,
    });
    this.log.append('step/end', { turnId, step: STEP, finishReason, usage });
    this.log.append('turn/end', {
      turnId,
      reason,
      ...(error ? { error } : {}),
      usage,
      steps: 1,
    });
    this.ended = true;
    this.log.close();
    return this.answer;
  }

  /** For a process that must exit now: ends what is open as the next open would, synchronously. */
  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      for (const repair of repairEvents(this.log.events))
        this.log.append(repair.type, repair.data as never);
      this.log.close();
    } catch {
      // The next open of the file repairs what could not be written now.
    }
  }

  private logAnsweredResults(): void {
    while (this.unanswered.length > 0) {
      const callId = this.unanswered[0] as string;
      const call = this.calls.get(callId);
      if (!call?.result) return;
      this.unanswered.shift();
      this.log.append('tool/result', {
        turnId: this.turnId,
        step: STEP,
        callId,
        name: call.name,
        content: call.result.content,
        isError: call.result.isError,
      });
    }
  }
}

/** The tool's programmatic name when the agent gives one, else the title's first word, else its kind. */
export function remoteToolName(call: {
  name?: string | null;
  title?: string | null;
  kind?: string | null;
}): string {
  if (call.name) return call.name;
  const first = call.title?.trim().split(/\s+/)[0];
  if (first && /^[A-Za-z_][\w.-]*$/.test(first)) return first;
  return call.kind ?? 'other';
}

/** How a remote stop reason ends the child's turn. */
export function turnEndOf(stopReason: StopReason): { reason: TurnEndReason; error?: TurnError } {
  switch (stopReason) {
    case 'end_turn':
      return { reason: 'completed' };
    case 'cancelled':
      return { reason: 'aborted' };
    case 'max_tokens':
      return { reason: 'max-tokens' };
    case 'max_turn_requests':
      return {
        reason: 'error',
        error: { message: 'the remote agent stopped: it reached its limit of model requests' },
      };
    case 'refusal':
      return { reason: 'error', error: { message: 'the remote agent refused to go on' } };
    default:
      return { reason: 'error', error: { message: `the remote agent stopped: ${stopReason}` } };
  }
}

/**
 * The turn's token usage when the agent reports it (`usage` of the prompt response, a field of
 * the protocol's unstable schema); zero when it does not.
 */
export function usageOf(response: object): Usage {
  const usage = (response as { usage?: unknown }).usage;
  if (typeof usage !== 'object' || usage === null) return { input: 0, output: 0 };
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  const fields = usage as Record<string, unknown>;
  const reasoning = count(fields.thoughtTokens);
  const cachedInput = count(fields.cachedReadTokens);
  const cacheWrite = count(fields.cachedWriteTokens);
  return {
    input: count(fields.inputTokens) ?? 0,
    output: count(fields.outputTokens) ?? 0,
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(cachedInput !== undefined ? { cachedInput } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
  };
}

function finishReasonOf(reason: TurnEndReason): FinishReason {
  if (reason === 'completed') return 'stop';
  if (reason === 'max-tokens') return 'length';
  if (reason === 'error') return 'error';
  return 'other';
}

type Content = Extract<SessionUpdate, { sessionUpdate: 'agent_message_chunk' }>['content'];

function contentText(content: Content): string {
  switch (content.type) {
    case 'text':
      return content.text;
    case 'image':
    case 'audio':
      return `[${content.type} ${content.mimeType}]`;
    case 'resource_link':
      return `[${content.name}: ${content.uri}]`;
    case 'resource':
      return 'text' in content.resource
        ? content.resource.text
        : `[resource ${content.resource.uri}]`;
    default:
      return '';
  }
}

function toolContentText(content: readonly ToolCallContent[]): string {
  return content
    .map((part) => {
      switch (part.type) {
        case 'content':
          return contentText(part.content);
        case 'diff':
          return `[diff of ${part.path}]\n${part.newText}`;
        case 'terminal':
          return `[terminal ${part.terminalId}]`;
        default:
          return '';
      }
    })
    .filter((text) => text.length > 0)
    .join('\n');
}
