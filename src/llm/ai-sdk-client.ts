/**
 * Adapts one AI SDK language model (LanguageModelV3) to Loom's `ModelClient`: our request becomes
 * an AI SDK prompt, the provider's stream parts become ours. One `stream()` call is exactly one
 * `doStream` attempt (retrying is `retry.ts`). It must never throw and never let a credential's
 * value into a part: every failure ends the stream with one `error` part whose message is redacted.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolChoice,
  LanguageModelV3ToolResultPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { assertNever, LoomError } from '../base/errors.js';
import {
  type FinishReason,
  imageDescription,
  type ModelClient,
  type ModelErrorInfo,
  type ModelImage,
  type ModelMessage,
  type ModelRequest,
  type ModelStreamPart,
  type ReasoningEffort,
  type ToolChoice,
  type Usage,
} from './contract.js';
import { abortedError, describeFailure } from './model-failure.js';
import type { ReasoningControl } from './reasoning-effort.js';
import { redactMessage } from './redacting-client.js';

export interface AiSdkModelClientOptions {
  /** The spec the client was made from (`provider:model`); safe to log. */
  id: string;
  /**
   * Called once per request, so credentials are read when the request is made. It may throw
   * (for example a `MISSING_CREDENTIAL` LoomError); the throw becomes an `error` part. It may
   * return a promise (a provider package loaded at the first request).
   */
  createModel: () => LanguageModelV3 | Promise<LanguageModelV3>;
  /**
   * Credential values (as set) to scrub from error messages, with their trimmed and encoded
   * forms (`credential-redaction.ts`); read per failure. Default: none.
   */
  secrets?: () => string[];
  /**
   * Mark Anthropic's prompt-cache breakpoints: the system prompt, the last tool, and the latest
   * two messages (four, Anthropic's limit), so a session's growing prefix is written once and
   * read after. Default: none (DeepSeek and OpenAI cache byte-stable prefixes by themselves).
   */
  cacheBreakpoints?: boolean;
  /** How the route sends `ModelRequest.effort`; absent: it has no reasoning control. */
  reasoning?: ReasoningControl;
  /**
   * The provider takes images inside a tool result (Anthropic). Default false: a tool result's
   * images follow the tool results in a user message (OpenAI's chat API, OpenAI-compatible
   * servers and DeepSeek turn a tool result into text only).
   */
  imagesInToolResults?: boolean;
}

type MappedPart =
  | Exclude<ModelStreamPart, { type: 'error' } | { type: 'attempt-failed' }>
  | { type: 'failure'; error: ModelErrorInfo };

const incompleteStream: ModelErrorInfo = {
  message: 'the provider stream ended before it reported a finish reason',
  retryable: true,
};

export class AiSdkModelClient implements ModelClient {
  readonly id: string;
  readonly #createModel: () => LanguageModelV3 | Promise<LanguageModelV3>;
  readonly #secrets: () => string[];
  readonly #cacheBreakpoints: boolean;
  readonly #reasoning: ReasoningControl | undefined;
  readonly #imagesInToolResults: boolean;

  constructor(options: AiSdkModelClientOptions) {
    this.id = options.id;
    this.#createModel = options.createModel;
    this.#secrets = options.secrets ?? (() => []);
    this.#cacheBreakpoints = options.cacheBreakpoints ?? false;
    this.#reasoning = options.reasoning;
    this.#imagesInToolResults = options.imagesInToolResults ?? false;
  }

  reasoningControl(effort: ReasoningEffort): string | undefined {
    return this.#reasoning?.describe(effort);
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const { signal } = request;
    if (signal.aborted) {
      yield { type: 'error', error: abortedError() };
      return;
    }
    let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
    const abort = watchAbort(signal, () => reader?.cancel().catch(() => undefined));
    try {
      const creating = Promise.resolve().then(() => this.#createModel());
      // After an abort nobody awaits the model: its failure is not an unhandled rejection.
      creating.catch(() => undefined);
      const model = await Promise.race([creating, abort.promise]);
      const result = await Promise.race([
        model.doStream(
          toCallOptions(request, {
            cacheBreakpoints: this.#cacheBreakpoints,
            reasoning: this.#reasoning,
            imagesInToolResults: this.#imagesInToolResults,
          }),
        ),
        abort.promise,
      ]);
      reader = result.stream.getReader();
      // An abort that came while the stream was being opened found no reader to cancel.
      if (signal.aborted) reader.cancel().catch(() => undefined);
      let signature: string | undefined;
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          yield this.#failurePart(incompleteStream, signal);
          return;
        }
        signature = reasoningSignatureOf(next.value) ?? signature;
        const part = mapStreamPart(next.value);
        if (part === undefined) continue;
        if (part.type === 'failure') {
          yield this.#failurePart(part.error, signal);
          return;
        }
        if (part.type === 'finish') {
          yield signature === undefined ? part : { ...part, reasoningSignature: signature };
          return;
        }
        yield part;
      }
    } catch (error) {
      yield this.#failurePart(describeFailure(error), signal);
    } finally {
      abort.dispose();
      reader?.cancel().catch(() => undefined);
    }
  }

  #failurePart(failure: ModelErrorInfo, signal: AbortSignal): ModelStreamPart {
    const error = signal.aborted ? abortedError() : failure;
    return {
      type: 'error',
      error: { ...error, message: redactMessage(error.message, this.#secrets) },
    };
  }
}

/**
 * On abort: rejects `promise` (raced against a call that may ignore the signal) and runs
 * `onAbort` (cancelling the reader ends a pending read). `dispose` detaches both.
 */
function watchAbort(
  signal: AbortSignal,
  onAbort: () => void,
): { promise: Promise<never>; dispose: () => void } {
  let listener: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    listener = () => {
      reject(signal.reason);
      onAbort();
    };
    signal.addEventListener('abort', listener, { once: true });
  });
  promise.catch(() => undefined);
  return {
    promise,
    dispose: () => {
      if (listener) signal.removeEventListener('abort', listener);
    },
  };
}

interface CallSettings {
  cacheBreakpoints: boolean;
  reasoning: ReasoningControl | undefined;
  imagesInToolResults: boolean;
}

/** The AI SDK call options of `request`, as a provider package receives them. */
export function toCallOptions(
  request: ModelRequest,
  settings: CallSettings,
): LanguageModelV3CallOptions {
  const { cacheBreakpoints, reasoning } = settings;
  const options: LanguageModelV3CallOptions = {
    prompt: toPrompt(request, settings.imagesInToolResults),
    abortSignal: request.signal,
  };
  if (request.tools.length > 0) {
    options.tools = request.tools.map(
      (tool): LanguageModelV3FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
      }),
    );
  }
  if (request.toolChoice !== undefined) {
    options.toolChoice = toToolChoice(request.toolChoice, request);
  }
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.effort !== undefined && reasoning) {
    const providerOptions = reasoning.providerOptions(request.effort, request);
    if (providerOptions) options.providerOptions = providerOptions;
  }
  if (cacheBreakpoints) markCacheBreakpoints(options);
  return options;
}

/**
 * Anthropic signs each thinking block (a `reasoning-delta` with the signature in its metadata);
 * the signature must come back with the block when the turn continues after a tool call.
 */
function reasoningSignatureOf(part: LanguageModelV3StreamPart): string | undefined {
  if (part.type !== 'reasoning-delta') return undefined;
  const signature = part.providerMetadata?.anthropic?.signature;
  return typeof signature === 'string' && signature.length > 0 ? signature : undefined;
}

const CACHE_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } };

/** The system prompt, the last tool and the latest two messages: Anthropic's four breakpoints. */
function markCacheBreakpoints(options: LanguageModelV3CallOptions): void {
  const system = options.prompt.find((message) => message.role === 'system');
  if (system) system.providerOptions = CACHE_BREAKPOINT;
  const lastTool = options.tools?.at(-1);
  if (lastTool?.type === 'function') lastTool.providerOptions = CACHE_BREAKPOINT;
  const latest = options.prompt.filter((message) => message.role !== 'system').slice(-2);
  for (const message of latest) message.providerOptions = CACHE_BREAKPOINT;
}

function toToolChoice(choice: ToolChoice, request: ModelRequest): LanguageModelV3ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  if (!request.tools.some((tool) => tool.name === choice.tool)) {
    throw new LoomError(
      'INVALID_ARGUMENT',
      `toolChoice names tool "${choice.tool}", which the request does not offer`,
    );
  }
  return { type: 'tool', toolName: choice.tool };
}

/**
 * Consecutive tool results share one tool message. Where the provider takes no images in tool
 * results, their images follow the group in one user message, each after a line naming its call.
 */
function toPrompt(
  request: Pick<ModelRequest, 'system' | 'messages'>,
  imagesInToolResults: boolean,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (request.system.length > 0) prompt.push({ role: 'system', content: request.system });
  let deferred: UserContent = [];
  const flush = () => {
    if (deferred.length === 0) return;
    prompt.push({ role: 'user', content: deferred });
    deferred = [];
  };
  for (const message of request.messages) {
    if (message.role !== 'tool') flush();
    const previous = prompt.at(-1);
    const inline = imagesInToolResults && !(message.role === 'tool' && message.isError);
    if (message.role === 'tool' && !inline && message.images && message.images.length > 0) {
      const count = message.images.length;
      deferred.push({
        type: 'text',
        text: `The ${count === 1 ? 'image' : `${count} images`} of the ${message.toolName} result (call ${message.callId}):`,
      });
      deferred.push(...message.images.map(imagePart));
    }
    if (message.role === 'tool' && previous?.role === 'tool') {
      previous.content.push(toToolResult(message, inline));
    } else {
      prompt.push(toPromptMessage(message, inline));
    }
  }
  flush();
  return prompt;
}

type UserContent = Extract<LanguageModelV3Message, { role: 'user' }>['content'];

/** An image as a file part; one without its bytes (never sent so) as its description. */
function imagePart(image: ModelImage): UserContent[number] {
  if (image.data === undefined) return { type: 'text', text: imageDescription(image) };
  return { type: 'file', mediaType: image.mediaType, data: image.data };
}

function toPromptMessage(
  message: ModelMessage,
  imagesInToolResults: boolean,
): LanguageModelV3Message {
  switch (message.role) {
    case 'user': {
      const content: UserContent = [{ type: 'text', text: message.content }];
      for (const image of message.images ?? []) content.push(imagePart(image));
      return { role: 'user', content };
    }
    case 'assistant': {
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      if (message.reasoning) {
        content.push({
          type: 'reasoning',
          text: message.reasoning,
          ...(message.reasoningSignature !== undefined
            ? { providerOptions: { anthropic: { signature: message.reasoningSignature } } }
            : {}),
        });
      }
      if (message.text.length > 0) content.push({ type: 'text', text: message.text });
      for (const call of message.toolCalls) {
        content.push({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: call.arguments,
        });
      }
      if (content.length === 0) content.push({ type: 'text', text: '' });
      return { role: 'assistant', content };
    }
    case 'tool':
      return { role: 'tool', content: [toToolResult(message, imagesInToolResults)] };
    default:
      return assertNever(message, 'model message');
  }
}

/** A result with images, where the provider takes them there, is `content`: its text, then each image. */
function toToolResult(
  message: Extract<ModelMessage, { role: 'tool' }>,
  imagesInToolResults: boolean,
): LanguageModelV3ToolResultPart {
  const part: LanguageModelV3ToolResultPart = {
    type: 'tool-result',
    toolCallId: message.callId,
    toolName: message.toolName,
    output: { type: message.isError ? 'error-text' : 'text', value: message.content },
  };
  const images = message.images ?? [];
  if (!imagesInToolResults || message.isError || images.length === 0) return part;
  // Anthropic refuses an empty text block.
  const value: ToolResultContent =
    message.content.length > 0 ? [{ type: 'text', text: message.content }] : [];
  for (const image of images) {
    value.push(
      image.data === undefined
        ? { type: 'text', text: imageDescription(image) }
        : { type: 'image-data', mediaType: image.mediaType, data: image.data },
    );
  }
  part.output = { type: 'content', value };
  return part;
}

type ToolResultContent = Extract<
  LanguageModelV3ToolResultPart['output'],
  { type: 'content' }
>['value'];

function mapStreamPart(part: LanguageModelV3StreamPart): MappedPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.delta.length > 0 ? { type: 'text', text: part.delta } : undefined;
    case 'reasoning-delta':
      return part.delta.length > 0 ? { type: 'reasoning', text: part.delta } : undefined;
    case 'tool-call':
      if (part.providerExecuted) return undefined;
      return {
        type: 'tool-call',
        call: { id: part.toolCallId, name: part.toolName, arguments: parseArguments(part.input) },
      };
    case 'finish': {
      const reason = part.finishReason as unknown;
      const unified = typeof reason === 'string' ? reason : part.finishReason.unified;
      const raw = typeof reason === 'string' ? reason : part.finishReason.raw;
      if (unified === 'other' && raw === undefined) {
        return { type: 'failure', error: incompleteStream };
      }
      return { type: 'finish', reason: toFinishReason(unified), usage: toUsage(part.usage) };
    }
    case 'error':
      return { type: 'failure', error: describeFailure(part.error) };
    default:
      return undefined;
  }
}

/** Empty input means a call without arguments; text that is not JSON is passed on verbatim. */
function parseArguments(input: string): unknown {
  if (input.trim().length === 0) return {};
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

function toFinishReason(unified: string): FinishReason {
  switch (unified) {
    case 'stop':
    case 'tool-calls':
    case 'length':
    case 'content-filter':
    case 'error':
      return unified;
    default:
      return 'other';
  }
}

/** Reads the V3 usage shape (token groups with `total`), tolerating plain numbers. */
export function toUsage(usage: LanguageModelV3Usage | undefined): Usage {
  const input = usage?.inputTokens as unknown;
  const output = usage?.outputTokens as unknown;
  const result: Usage = { input: tokenCount(input, 'total'), output: tokenCount(output, 'total') };
  const reasoning = tokenCount(output, 'reasoning');
  const cachedInput = tokenCount(input, 'cacheRead');
  const cacheWrite = tokenCount(input, 'cacheWrite');
  if (reasoning > 0) result.reasoning = reasoning;
  if (cachedInput > 0) result.cachedInput = cachedInput;
  if (cacheWrite > 0) result.cacheWrite = cacheWrite;
  return result;
}

function tokenCount(
  group: unknown,
  field: 'total' | 'reasoning' | 'cacheRead' | 'cacheWrite',
): number {
  if (typeof group === 'number') return field === 'total' && Number.isFinite(group) ? group : 0;
  if (typeof group !== 'object' || group === null) return 0;
  const value = (group as Record<string, unknown>)[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
