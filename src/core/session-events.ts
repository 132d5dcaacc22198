/**
 * The session log's vocabulary. Each line of a session file is `{type, seq, time, data}`; the
 * first line is the versioned header. Plugins add event types by augmenting `SessionEventMap`
 * (`declare module 'loom/core/session-events'`), never by editing this file. Everything a model
 * saw must be rebuildable from these events.
 */

import type { LoomErrorCode } from '../base/errors.js';
import type {
  FinishReason,
  ImageReference,
  ModelErrorInfo,
  ModelToolCall,
  ModelToolSpec,
  ReasoningEffort,
  Usage,
} from '../llm/contract.js';

export const SESSION_FORMAT_VERSION = 1;

export interface SessionHeader {
  version: number;
  sessionId: string;
  /** ISO 8601. */
  created: string;
  parentSession: string | null;
  /** How many events at the start were copied from the parent (a fork's seed). */
  seedLength: number;
  delegationDepth: number;
  /** The real path (symlinks resolved) of the workspace; absent in sessions of older versions. */
  cwd?: string;
}

/** A request's header: its prompt is the `prompt/blob` named `prompt`. */
export interface RequestHeader {
  turnId: string;
  step: number;
  model: string;
  prompt: string;
  /** The effort the request asked its model for (`ModelRequest.effort`); absent: none. */
  effort?: ReasoningEffort;
}

/** A request's header as sessions written before `prompt/blob` hold it: the prompt inline. */
export interface InlineRequestHeader {
  turnId: string;
  step: number;
  model: string;
  system: string;
  tools: ModelToolSpec[];
}

/** How a user message joins the agent: its own turn, the running turn, or the next turn. */
export type Delivery = 'followup' | 'steer' | 'inject';

export type TurnEndReason = 'completed' | 'aborted' | 'error' | 'max-tokens' | 'interrupted';

export interface TurnError {
  message: string;
  code?: LoomErrorCode;
}

export interface SessionEventMap {
  'turn/start': { turnId: string };
  'user/message': {
    text: string;
    delivery: Delivery;
    turnId: string;
    /** Absent when the human wrote it; otherwise its sender, such as `job` or `subagent`. */
    source?: string;
    /** Which of its sender's numbered messages this is (a goal's round); absent otherwise. */
    round?: number;
    /** Images attached to it (`--image`, `@image.png`, an ACP image block), by blob hash. */
    images?: ImageReference[];
  };
  'step/start': { turnId: string; step: number };
  /** A system prompt and tool set, logged before the first header that names its `hash`. */
  'prompt/blob': { hash: string; system: string; tools: ModelToolSpec[] };
  /**
   * The same, kept once in the prompt store beside the session file (core/prompt-store) instead
   * of in the log, as `prompts/<hash>.json` (older logs also name that path as `file`, unread).
   */
  'prompt/stored': { hash: string };
  /** Resolve what it sent with `requestPromptOf` (core/request-prompt), never by its fields. */
  'request/header': RequestHeader | InlineRequestHeader;
  'model/retry': {
    turnId: string;
    step: number;
    attempt: number;
    error: ModelErrorInfo;
    delayMs: number;
  };
  'assistant/chunk': { turnId: string; step: number; kind: 'text' | 'reasoning'; text: string };
  'assistant/message': {
    turnId: string;
    step: number;
    text: string;
    reasoning?: string;
    /** The provider's signature of `reasoning`, sent back with it (Anthropic's thinking). */
    reasoningSignature?: string;
    toolCalls: ModelToolCall[];
    finishReason: FinishReason;
    usage: Usage;
    model: string;
    /** Attempts the request took (1 without retries). */
    attempts: number;
  };
  /**
   * A model request made for the agent outside its conversation's steps (a compaction's summary):
   * its tokens count in the turn it ran in (`turnId`; absent outside a turn), in `/cost` and in
   * budgets, through `requestSpend` (core/request-spend), but the model never sees its answer
   * as a message. Logged once the request ended, whether it succeeded or not.
   */
  'model/side-request': { purpose: string; model: string; usage: Usage; turnId?: string };
  /**
   * A tool call. `parentCallId` marks a call a tool made on the model's behalf (an inner call of
   * Code Mode's `run_code`): the model never sees it, only its enclosing call's result.
   */
  'tool/call': {
    turnId: string;
    step: number;
    callId: string;
    name: string;
    arguments: unknown;
    parentCallId?: string;
  };
  'tool/result': {
    turnId: string;
    step: number;
    callId: string;
    name: string;
    content: string;
    isError: boolean;
    errorCode?: LoomErrorCode;
    parentCallId?: string;
    /** What the tool kept beside its content (an MCP result's annotations); never sent. */
    details?: Record<string, unknown>;
    /** Images the tool gave (read_file of a PNG, an MCP image result), by blob hash. */
    images?: ImageReference[];
  };
  /** A running call's progress (see core/tool-execution `toolProgressReported`); shown, never sent. */
  'tool/progress': {
    turnId: string;
    step: number;
    callId: string;
    name: string;
    progress?: number;
    total?: number;
    message?: string;
  };
  /**
   * Deferred tools the agent loaded (core/tool-loading): requests offer their full schemas from
   * the next one on, for the rest of the session. `callId` is the `load_tools` call, or the call
   * of a deferred tool made before it was loaded.
   */
  'tools/loaded': { turnId: string; callId: string; names: string[] };
  'step/end': { turnId: string; step: number; finishReason: FinishReason; usage: Usage };
  'turn/end': {
    turnId: string;
    reason: TurnEndReason;
    error?: TurnError;
    usage: Usage;
    steps: number;
  };
}

export type SessionEventType = keyof SessionEventMap & string;

export interface SessionEvent<Type extends SessionEventType = SessionEventType> {
  type: Type;
  seq: number;
  /** Milliseconds since the epoch. */
  time: number;
  data: SessionEventMap[Type];
}

/** Any event of the map, discriminated by `type`. */
export type AnySessionEvent = { [Type in SessionEventType]: SessionEvent<Type> }[SessionEventType];

export function isEvent<Type extends SessionEventType>(
  event: SessionEvent,
  type: Type,
): event is SessionEvent<Type> {
  return event.type === type;
}
