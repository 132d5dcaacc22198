/**
 * What a tool is and what the pipeline hands it. A tool is data plus one `execute` function;
 * its `parameters` JSON Schema is both what the model sees and what arguments are validated
 * against. A tool must honour `signal` (the pipeline owns cancellation) and may throw: a throw
 * becomes an error result the model sees, never a crash.
 */

import type { LoomErrorCode } from '../base/errors.js';
import type { ImageReference, JsonSchema } from '../llm/contract.js';
import type { Context } from './context.js';

export type ToolOutput =
  | string
  | {
      content: string;
      isError?: boolean;
      metadata?: Record<string, unknown>;
      /** Kept in the log's `tool/result` event (JSON), never shown to the model. */
      details?: Record<string, unknown>;
      /**
       * Images beside the text, already in the blob store (`keepImage`): sent as images to a model
       * that takes them, described in the text to one that does not.
       */
      images?: ImageReference[];
    };

export interface ToolExecution {
  callId: string;
  name: string;
  /** Arguments after validation. */
  arguments: unknown;
  /** Aborted when the turn is cancelled or the tool times out. */
  signal: AbortSignal;
  /** The calling agent's scope. */
  context: Context;
  agentId: string;
  turnId: string;
  /** Ends the turn after the current step; the model is not asked again. */
  concludeTurn(): void;
  /**
   * This call's opaque identity: a frozen object with nothing in it, unique to the call. Calls a
   * tool makes on the model's behalf (Code Mode's `run_code`) carry it as their `parentToken`, so
   * an observer can tie an inner call to its enclosing call without holding the enclosing
   * execution itself.
   */
  token: object;
  /** Set on a call made inside another call: the enclosing call's `token`. */
  parentToken?: object;
}

// biome-ignore lint/suspicious/noExplicitAny: each tool narrows its own validated arguments.
export interface ToolDefinition<Arguments = any> {
  name: string;
  /** What the model reads to decide when and how to call it. */
  description: string;
  /** JSON Schema of the arguments object; validated before `execute`. */
  parameters: JsonSchema;
  /** Safe to run in parallel with other concurrency-safe calls of the same step. Default false. */
  concurrencySafe?: boolean;
  /** Per-call time limit; default from the pipeline's config. */
  timeoutMs?: number;
  /**
   * Whether a request may offer the tool by name and `summary` alone until the agent loads it
   * (`load_tools`, core/tool-loading): `rare` for a tool most turns never need; `numerous` for one
   * of many tools of a kind (an MCP server's), deferred past the first few an agent sees. Absent:
   * always offered in full. It changes how the tool is shown, never whether it may be called.
   */
  deferral?: 'rare' | 'numerous';
  /** One line naming what it does, where it is deferred; default the description's first sentence. */
  summary?: string;
  execute(args: Arguments, execution: ToolExecution): ToolOutput | Promise<ToolOutput>;
}

export interface ToolResult {
  callId: string;
  name: string;
  content: string;
  isError: boolean;
  /**
   * Set on errors the pipeline produced (`UNKNOWN_TOOL`, `TOOL_ARGUMENTS`, `TOOL_DENIED`, …) and
   * on a tool's thrown `LoomError` (its code).
   */
  errorCode?: LoomErrorCode;
  metadata?: Record<string, unknown>;
  /** What the log keeps beside the content (an MCP result's annotations); the model never sees it. */
  details?: Record<string, unknown>;
  /** Images beside the content, by blob hash (see `ToolOutput`). */
  images?: ImageReference[];
}
