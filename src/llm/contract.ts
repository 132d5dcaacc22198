/**
 * The model seam: a request in, an async stream of parts out, usage at the end. Adapters (AI SDK
 * providers, the scripted model) sit behind `ModelClient`. One `stream()` call is one attempt;
 * retrying is a policy around it (`retry.ts`). Failures arrive as data (an `error` part), never
 * as a throw that crosses the agent loop. Nothing here may hold or print a credential's value.
 */

/** A JSON Schema object as sent on the wire. */
export type JsonSchema = { [key: string]: unknown };

export interface ModelToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** The parsed arguments; the raw text when the provider sent text that is not JSON. */
  arguments: unknown;
}

/**
 * Marks a user message Loom wrote into the model's view in place of history (a compaction's
 * summary, or its restatement of where the agent stands). Providers are sent only its content;
 * the scripted model reads the mark to keep its place in a turn (SPEC §3).
 */
export interface CompactionNote {
  kind: 'summary' | 'state';
  /**
   * For a summary: the latest user message it stands for and how many model steps followed it
   * within the summarized history, so a turn's position survives its summary.
   */
  openTurn?: { prompt: string; steps: number };
}

/**
 * An image as the log keeps it: its bytes live in the blob store (`$LOOM_HOME/blobs/<blob>`), named
 * by their SHA-256; never inline. `width` and `height` in pixels when they could be read.
 */
export interface ImageReference {
  type: 'image';
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** The SHA-256 of the bytes, lower-case hex: the blob's file name. */
  blob: string;
  bytes: number;
  width?: number;
  height?: number;
}

/**
 * An image of a message. `data` (the bytes in base64) is set only on the request sent to a model
 * that takes images; a message derived from the log has the reference alone.
 */
export interface ModelImage extends ImageReference {
  data?: string;
}

export type ModelMessage =
  | { role: 'user'; content: string; images?: ModelImage[]; compaction?: CompactionNote }
  | {
      role: 'assistant';
      text: string;
      reasoning?: string;
      /** The provider's signature of `reasoning` (Anthropic's thinking), sent back with it. */
      reasoningSignature?: string;
      toolCalls: ModelToolCall[];
    }
  | {
      role: 'tool';
      callId: string;
      toolName: string;
      content: string;
      isError: boolean;
      /** Images the tool gave beside its text (read_file of a PNG, an MCP image result). */
      images?: ModelImage[];
    };

export type ToolChoice = 'auto' | 'none' | 'required' | { tool: string };

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * How hard the model should think, mapped to the route's reasoning control (a reasoning
   * effort, a thinking budget); a route without one ignores it. Absent: the route's default.
   */
  effort?: ReasoningEffort;
  /** Aborting ends the stream promptly; the owner of the request owns the signal. */
  signal: AbortSignal;
}

/** Claude Code's `effort` levels, the names a workflow's `agent()` and an agent type use. */
export type ReasoningEffort = 'low' | 'medium' | 'high' | 'max';

export interface Usage {
  input: number;
  output: number;
  reasoning?: number;
  /** Prompt tokens read from the provider's cache (counted in `input` too). */
  cachedInput?: number;
  /** Prompt tokens written to the provider's cache (counted in `input` too). */
  cacheWrite?: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

/** A model spec that cannot be parsed or resolved, and a provider whose credential is unset. */
export type ModelSetupErrorCode = 'MODEL_SPEC' | 'MISSING_CREDENTIAL';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<ModelSetupErrorCode, true> {}
}

export interface ModelErrorInfo {
  message: string;
  /** HTTP status when the provider answered with one. */
  status?: number;
  /** 429, 5xx and network failures are retryable; 4xx and malformed responses are not. */
  retryable: boolean;
  /** The provider's requested wait (Retry-After), when it gave one. */
  retryAfterMs?: number;
  aborted?: boolean;
  /** The request was larger than the model's context window ("context length exceeded"); never retried. */
  contextOverflow?: boolean;
}

export type ModelStreamPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; call: ModelToolCall }
  /** Emitted by the retry policy: an attempt failed and another follows after `delayMs`. */
  | { type: 'attempt-failed'; attempt: number; error: ModelErrorInfo; delayMs: number }
  /** Always last on success; `reasoningSignature` when the provider signed the reasoning. */
  | { type: 'finish'; reason: FinishReason; usage: Usage; reasoningSignature?: string }
  /** Always last on failure (including abort); nothing follows it. */
  | { type: 'error'; error: ModelErrorInfo; usage?: Usage };

export interface ModelClient {
  /** The spec it was made from, as `provider:model`; safe to log. */
  readonly id: string;
  /** Must not throw; every failure is an `error` part. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  /**
   * What the client itself knows of its model (the scripted model's declared `context` and
   * `images`); absent fields come from the model catalog (`src/context/`).
   */
  readonly limits?: { context?: number; output?: number; images?: boolean };
  /**
   * How this client sends `ModelRequest.effort` at `effort` on its route (`OpenAI
   * reasoningEffort high`), for a caller to say so; undefined, or the method absent: the route has
   * no reasoning control and a request with an effort runs without one. Pure; must not throw.
   */
  reasoningControl?(effort: ReasoningEffort): string | undefined;
}

export const emptyUsage = (): Usage => ({ input: 0, output: 0 });

export function addUsage(total: Usage, more: Usage | undefined): Usage {
  if (!more) return total;
  const sum: Usage = { input: total.input + more.input, output: total.output + more.output };
  const reasoning = (total.reasoning ?? 0) + (more.reasoning ?? 0);
  const cachedInput = (total.cachedInput ?? 0) + (more.cachedInput ?? 0);
  if (reasoning > 0) sum.reasoning = reasoning;
  if (cachedInput > 0) sum.cachedInput = cachedInput;
  const cacheWrite = (total.cacheWrite ?? 0) + (more.cacheWrite ?? 0);
  if (cacheWrite > 0) sum.cacheWrite = cacheWrite;
  return sum;
}

/**
 * The tokens an image is counted at before a provider reports: about (width × height) / 750, as
 * Anthropic documents, at least 85 (OpenAI's base cost of a tile) and at most 1,600 (an image
 * scaled to the long-edge limit costs about that much); 1,600 when the size is unknown.
 */
export function imageTokens(image: Pick<ImageReference, 'width' | 'height'>): number {
  if (image.width === undefined || image.height === undefined) return IMAGE_TOKEN_CAP;
  return Math.min(IMAGE_TOKEN_CAP, Math.max(85, Math.ceil((image.width * image.height) / 750)));
}

export const IMAGE_TOKEN_CAP = 1_600;

/** What a model that takes no images reads in an image's place: `[image: image/png, 2,048 bytes, 64x48 pixels]`. */
export function imageDescription(image: ImageReference): string {
  const size = image.bytes === 1 ? '1 byte' : `${image.bytes.toLocaleString('en-US')} bytes`;
  const pixels =
    image.width !== undefined && image.height !== undefined
      ? `, ${image.width}x${image.height} pixels`
      : '';
  return `[image: ${image.mediaType}, ${size}${pixels}, sha256 ${image.blob.slice(0, 12)}; this model does not take images]`;
}
