/**
 * The scripted model: a ModelClient that answers each request from the rules of a scripted model
 * file, so runs, demos and tests work offline and deterministically. Rules are validated when the
 * client is made; `stream()` must never throw: every failure, an unmatched prompt, a placeholder
 * that cannot be filled in, a request larger than the declared context window and an abort (at
 * any point) end the stream with exactly one `error` part. Each request is recorded (`calls`) when
 * `stream()` is called.
 */
import { createHash } from 'node:crypto';
import { assertNever, errorMessage } from '../base/errors.js';
import {
  imageTokens,
  type ModelClient,
  type ModelErrorInfo,
  type ModelMessage,
  type ModelRequest,
  type ModelStreamPart,
  type Usage,
} from './contract.js';
import { isContextOverflowMessage } from './model-failure.js';
import {
  CallRecord,
  type ScriptedAnswerer,
  type ScriptedCall,
  type UnusedScriptedRule,
} from './scripted-calls.js';
import {
  loadScriptedModel,
  type ScriptedModelFile,
  type ScriptedResponse,
  type ScriptedRule,
  type ScriptedStep,
  type ScriptedUsage,
  validateScriptedModel,
} from './scripted-rules.js';
import { Substitution } from './scripted-substitution.js';
import {
  ANSWER_ARGUMENT,
  STRUCTURED_OUTPUT_TOOL,
  WRAPPED_ANSWER_WORDS,
} from './structured-answer.js';

export interface ScriptedModelOptions {
  /** Names the model in its id (`scripted:<name>`). Default: the file path, or `inline`. */
  name?: string;
  /**
   * Keep a copy of every request in `calls`; default true. The CLI turns it off: a long run
   * would hold every request it made. `unusedRules()` works either way.
   */
  recordCalls?: boolean;
}

/** A ModelClient that also reports what it was asked, for tests to assert their script ran. */
export interface ScriptedModelClient extends ModelClient {
  /**
   * Every request that reached a rule (one whose signal was already aborted when it was sent is
   * not), in the order sent; recorded when `stream()` is called.
   */
  readonly calls: readonly ScriptedCall[];
  /** Rules that never answered, and steps of answering rules that never did (not `default`). */
  unusedRules(): UnusedScriptedRule[];
}

const runCodeTool = 'run_code';

/**
 * How a request takes a structured answer: its own `structured_output` tool (`native`), a
 * `run_code` program calling the one its Code Mode SDK declares (`code`), or not at all; and
 * whether the tool carries the answer in its `value` argument (`wrapped`).
 */
type StructuredOutputRoute = { kind: 'native' | 'code' | 'none'; wrapped: boolean };

function structuredOutputRoute(request: ModelRequest): StructuredOutputRoute {
  const tool = request.tools.find((candidate) => candidate.name === STRUCTURED_OUTPUT_TOOL);
  if (tool) return { kind: 'native', wrapped: tool.description.startsWith(WRAPPED_ANSWER_WORDS) };
  const code =
    request.tools.some((candidate) => candidate.name === runCodeTool) &&
    request.system.includes(`${STRUCTURED_OUTPUT_TOOL}(`);
  if (!code) return { kind: 'none', wrapped: false };
  return { kind: 'code', wrapped: request.system.includes(WRAPPED_ANSWER_WORDS) };
}
const maximumTextParts = 4;
const maximumPromptInError = 200;

interface Conversation {
  prompt: string;
  /** Assistant messages after the latest user message: which request of the turn this is. */
  stepIndex: number;
  lastToolResult: string | undefined;
  /** The image parts of the whole request (see `imagesSeen`). */
  images: string;
}

interface CompiledRule {
  rule: ScriptedRule;
  pattern: RegExp;
  answered: number;
}

interface Choice {
  answerer: ScriptedAnswerer;
  response: ScriptedResponse;
  captures: string[];
}

/** What `stream()` decided when it was called: nothing yet (aborted), a choice, or a failure. */
type Decision =
  | { kind: 'aborted' }
  /**
   * `step`: the index in the chosen response's `steps` (0 without steps or without a choice);
   * `tokens`: the estimate of the whole request.
   */
  | {
      kind: 'chosen';
      conversation: Conversation;
      choice: Choice | undefined;
      step: number;
      tokens: number;
    }
  /** Larger than the declared window: it fails as a provider's "context length exceeded". */
  | { kind: 'overflow'; tokens: number; window: number }
  | { kind: 'failed'; error: unknown };

/** A string source is a file path, loaded and validated now; problems throw a UserError. */
export function createScriptedModel(
  source: string | ScriptedModelFile,
  options: ScriptedModelOptions = {},
): ScriptedModelClient {
  const label = options.name ?? (typeof source === 'string' ? source : 'inline');
  const file =
    typeof source === 'string' ? loadScriptedModel(source) : validateScriptedModel(source, label);
  const rules: CompiledRule[] = file.rules.map((rule) => ({
    rule,
    pattern: new RegExp(rule.when),
    answered: 0,
  }));
  const record = new CallRecord(file, options.recordCalls ?? true);
  const limits: NonNullable<ModelClient['limits']> = {};
  if (file.context !== undefined) limits.context = file.context;
  if (file.images !== undefined) limits.images = file.images;
  let callCounter = 0;
  const nextCallId = () => `call_${++callCounter}`;

  const choose = (conversation: Conversation): Choice | undefined => {
    for (const [index, entry] of rules.entries()) {
      const match = entry.pattern.exec(conversation.prompt);
      if (!match) continue;
      const counted = !('steps' in entry.rule) || conversation.stepIndex === 0;
      const { times } = entry.rule;
      if (counted && times !== undefined && entry.answered >= times) continue;
      if (counted) entry.answered++;
      const answerer = { kind: 'rule' as const, index, when: entry.rule.when };
      return { answerer, response: entry.rule, captures: [...match] };
    }
    return file.default
      ? { answerer: { kind: 'default' }, response: file.default, captures: [] }
      : undefined;
  };

  const decide = (request: ModelRequest): Decision => {
    try {
      if (request.signal.aborted) return { kind: 'aborted' };
      const conversation = readConversation(request.messages);
      const tokens = estimateTokens(inputCharacters(request));
      // Like a provider, the window is checked before the model sees the request: no rule answers.
      if (file.context !== undefined && tokens > file.context) {
        record.add(request, conversation.prompt, { kind: 'overflow' }, 0);
        return { kind: 'overflow', tokens, window: file.context };
      }
      const choice = choose(conversation);
      const step = choice ? stepIndexOf(choice.response, conversation.stepIndex) : 0;
      record.add(request, conversation.prompt, choice?.answerer ?? { kind: 'unmatched' }, step);
      return { kind: 'chosen', conversation, choice, step, tokens };
    } catch (error) {
      return { kind: 'failed', error };
    }
  };

  async function* respond(
    request: ModelRequest,
    decision: Decision,
  ): AsyncGenerator<ModelStreamPart> {
    let inputTokens = 0;
    const aborted = (): ModelStreamPart =>
      failure(
        { message: 'the request was aborted', retryable: false, aborted: true },
        { input: inputTokens, output: 0 },
      );
    try {
      // A request aborted before it was made was never sent: like a real provider, no tokens.
      if (decision.kind === 'aborted') {
        yield aborted();
        return;
      }
      if (decision.kind === 'failed') {
        inputTokens = estimateTokens(inputCharacters(request));
        throw decision.error;
      }
      if (decision.kind === 'overflow') {
        // A provider rejects an oversized request before it runs: nothing is billed.
        yield failure(contextOverflow(decision.tokens, decision.window), { input: 0, output: 0 });
        return;
      }
      inputTokens = decision.tokens;
      // A rule's given usage holds for its request even when the request is aborted or fails.
      const given = decision.choice
        ? pickStep(decision.choice.response, decision.step).usage
        : undefined;
      if (given) inputTokens = given.input;
      if (request.signal.aborted) {
        yield aborted();
        return;
      }
      const { conversation, choice, step: stepIndex } = decision;
      if (!choice) {
        const prompt = quote(conversation.prompt);
        const message = `scripted model ${label}: no rule matches the prompt ${prompt} and there is no default`;
        yield failure({ message, retryable: false }, { input: inputTokens, output: 0 });
        return;
      }
      const step = pickStep(choice.response, stepIndex);
      const delayed = step.delayMs ? await delay(step.delayMs, request.signal) : true;
      if ('hang' in step || !delayed) {
        await untilAborted(request.signal);
        yield aborted();
        return;
      }
      const substitution = new Substitution({ ...conversation, captures: choice.captures });
      const structuredRoute = structuredOutputRoute(request);
      const result = answer(step, substitution, structuredRoute, nextCallId);
      if (substitution.problem) {
        const { field, message } = substitution.problem;
        const where = `${answererName(choice.answerer)} step ${stepIndex}, ${field}`;
        const text = `scripted model ${label}: ${where}: ${message}`;
        yield failure({ message: text, retryable: false }, { input: inputTokens, output: 0 });
        return;
      }
      const usage: Usage = step.usage
        ? givenUsage(step.usage)
        : { input: inputTokens, output: estimateTokens(result.characters) };
      if (result.reasoningCharacters > 0 && !step.usage) {
        usage.reasoning = estimateTokens(result.reasoningCharacters);
      }
      for (const part of result.parts) {
        if (request.signal.aborted) break;
        yield part;
      }
      if (request.signal.aborted) yield aborted();
      else if (result.error) yield failure(result.error, usage);
      else yield { type: 'finish', reason: result.reason, usage };
    } catch (error) {
      const message = `scripted model ${label} failed: ${errorMessage(error)}`;
      yield failure({ message, retryable: false }, { input: inputTokens, output: 0 });
    }
  }

  return {
    id: `scripted:${label}`,
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    calls: record.calls,
    unusedRules: () => record.unusedRules(),
    // It stands in for a route that has a reasoning control: an effort is taken (and recorded in
    // `calls`), so a workflow tested offline shows what it would on a real route.
    reasoningControl: (effort) =>
      `the scripted model takes effort ${effort} as given (its answers do not change)`,
    stream: (request) => respond(request, decide(request)),
  };
}

function answererName(answerer: ScriptedAnswerer): string {
  switch (answerer.kind) {
    case 'rule':
      return `rules[${answerer.index}] (when ${JSON.stringify(answerer.when)})`;
    case 'default':
      return 'default';
    case 'unmatched':
      return 'no rule';
    case 'overflow':
      return 'no rule (the request was larger than the context window)';
    default:
      return assertNever(answerer, 'scripted answerer');
  }
}

interface Answer {
  parts: ModelStreamPart[];
  reason: 'stop' | 'tool-calls';
  /** Set for an `error` step: the stream ends with it instead of a finish part. */
  error?: ModelErrorInfo;
  characters: number;
  reasoningCharacters: number;
}

function answer(
  step: Exclude<ScriptedStep, { hang: true }>,
  substitution: Substitution,
  structuredRoute: StructuredOutputRoute,
  nextCallId: () => string,
): Answer {
  // Every answer's parts are one array grown by push, neither mapped nor spread: an optimised
  // `map` makes holey arrays, and V8 keeps `respond` optimised only while they share one kind.
  const parts: ModelStreamPart[] = [];
  if ('error' in step) {
    const error: ModelErrorInfo = {
      message: substitution.text(step.error, 'error'),
      retryable: false,
    };
    if (step.status !== undefined) {
      error.status = step.status;
      error.retryable = step.status === 429 || step.status >= 500;
    }
    // Classified as a provider's message is: "context length exceeded" is an overflow, never retried.
    if (isContextOverflowMessage(error.message)) {
      error.contextOverflow = true;
      error.retryable = false;
    }
    return { parts, reason: 'stop', error, characters: 0, reasoningCharacters: 0 };
  }
  const reasoning =
    step.reasoning === undefined ? '' : substitution.text(step.reasoning, 'reasoning');
  const content = answerContent(step, substitution, structuredRoute, nextCallId);
  pushTextParts(parts, 'reasoning', reasoning);
  for (const part of content.parts) parts.push(part);
  return { ...content, parts, reasoningCharacters: reasoning.length };
}

function answerContent(
  step: Exclude<ScriptedStep, { hang: true } | { error: string }>,
  substitution: Substitution,
  structuredRoute: StructuredOutputRoute,
  nextCallId: () => string,
): Pick<Answer, 'parts' | 'reason' | 'characters'> {
  const parts: ModelStreamPart[] = [];
  const callTools = (calls: Array<{ name: string; arguments: unknown }>) => {
    for (const call of calls) {
      parts.push({ type: 'tool-call', call: { id: nextCallId(), ...call } });
    }
    return {
      parts,
      reason: 'tool-calls' as const,
      characters: calls.reduce((sum, call) => sum + jsonLength(call.arguments), 0),
    };
  };
  const say = (text: string) => {
    pushTextParts(parts, 'text', text);
    return { parts, reason: 'stop' as const, characters: text.length };
  };
  if ('tools' in step) {
    return callTools(
      step.tools.map((tool, index) => ({
        name: tool.name,
        arguments: substitution.deep(tool.arguments ?? {}, `tools[${index}].arguments`),
      })),
    );
  }
  if ('reply' in step) return say(substitution.text(step.reply, 'reply'));
  const value = substitution.deep(step.output, 'output');
  // `output` is the answer itself; the tool's arguments wrap it when the tool says they do.
  const args = structuredRoute.wrapped ? { [ANSWER_ARGUMENT]: value } : value;
  switch (structuredRoute.kind) {
    case 'native':
      return callTools([{ name: STRUCTURED_OUTPUT_TOOL, arguments: args }]);
    case 'code': {
      const code = `await tools.${STRUCTURED_OUTPUT_TOOL}(${JSON.stringify(args)});\nreturn 'delivered';`;
      return callTools([{ name: runCodeTool, arguments: { code } }]);
    }
    case 'none':
      return say(JSON.stringify(value) ?? 'null');
    default:
      return assertNever(structuredRoute.kind, 'structured output route');
  }
}

/** Which of the response's `steps` answers request `requestIndex` of a turn (the last repeats). */
function stepIndexOf(response: ScriptedResponse, requestIndex: number): number {
  return 'steps' in response ? Math.min(requestIndex, response.steps.length - 1) : 0;
}

function pickStep(response: ScriptedResponse, stepIndex: number): ScriptedStep {
  if (!('steps' in response)) return response;
  const chosen = response.steps[stepIndex] as ScriptedStep;
  return { delayMs: response.delayMs, usage: response.usage, ...chosen };
}

/** The error a provider gives for a request larger than the window; not retryable. */
function contextOverflow(tokens: number, window: number): ModelErrorInfo {
  return {
    message: `context length exceeded: the request has ${tokens} tokens, the window is ${window}`,
    status: 400,
    retryable: false,
    contextOverflow: true,
  };
}

/** A step's `usage` as the seam's Usage: `cacheRead` is `cachedInput`. */
function givenUsage(given: ScriptedUsage): Usage {
  const usage: Usage = { input: given.input, output: given.output };
  if (given.cacheRead !== undefined) usage.cachedInput = given.cacheRead;
  if (given.cacheWrite !== undefined) usage.cacheWrite = given.cacheWrite;
  return usage;
}

function readConversation(messages: ModelMessage[]): Conversation {
  let prompt = '';
  let stepIndex = 0;
  let lastToolResult: string | undefined;
  for (const message of messages) {
    if (message.role === 'user') {
      // What compaction wrote in place of history keeps the turn's place: a restatement is not
      // a prompt, and a summary stands for the prompt and steps it replaced.
      const note = message.compaction;
      if (note?.kind === 'state') continue;
      if (note?.kind === 'summary') {
        if (note.openTurn) {
          prompt = note.openTurn.prompt;
          stepIndex = note.openTurn.steps;
        }
        continue;
      }
      prompt = message.content;
      stepIndex = 0;
    } else if (message.role === 'assistant') stepIndex++;
    else lastToolResult = message.content;
  }
  return { prompt, stepIndex, lastToolResult, images: imagesSeen(messages) };
}

/**
 * The image parts a request carries, as `{{images}}` shows them: type, size in pixels, bytes
 * received and the SHA-256 of the bytes received (so a test sees the bytes themselves arrived).
 */
function imagesSeen(messages: ModelMessage[]): string {
  const seen: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') continue;
    for (const image of message.images ?? []) {
      const pixels =
        image.width !== undefined && image.height !== undefined
          ? ` ${image.width}x${image.height}`
          : '';
      if (image.data === undefined) {
        seen.push(`${image.mediaType}${pixels} without its bytes`);
        continue;
      }
      const bytes = Buffer.from(image.data, 'base64');
      const hash = createHash('sha256').update(bytes).digest('hex');
      seen.push(`${image.mediaType}${pixels} ${bytes.byteLength} bytes sha256 ${hash}`);
    }
  }
  return seen.length === 0 ? 'no images' : seen.join('; ');
}

/** Appends `text` to `parts` as parts of `type` (see `splitText`); none for an empty text. */
function pushTextParts(parts: ModelStreamPart[], type: 'text' | 'reasoning', text: string): void {
  for (const piece of splitText(text)) parts.push({ type, text: piece });
}

/** Splits on word boundaries into at most a few parts whose concatenation is the text. */
function splitText(text: string): string[] {
  if (text === '') return [];
  const words = text.split(/(?<=\s)(?=\S)/);
  const size = Math.ceil(words.length / maximumTextParts);
  const parts: string[] = [];
  for (let start = 0; start < words.length; start += size) {
    parts.push(words.slice(start, start + size).join(''));
  }
  return parts;
}

function inputCharacters(request: ModelRequest): number {
  let characters = request.system.length;
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      characters += message.text.length + (message.reasoning?.length ?? 0);
      for (const call of message.toolCalls) characters += jsonLength(call.arguments);
    } else {
      characters += message.content.length;
      for (const image of message.images ?? []) characters += imageTokens(image) * 4;
    }
  }
  return characters;
}

const estimateTokens = (characters: number): number => Math.ceil(characters / 4);
const jsonLength = (value: unknown): number => (JSON.stringify(value) ?? '').length;

function quote(prompt: string): string {
  const shown =
    prompt.length > maximumPromptInError ? `${prompt.slice(0, maximumPromptInError)}…` : prompt;
  return JSON.stringify(shown);
}

function failure(error: ModelErrorInfo, usage: Usage): ModelStreamPart {
  return { type: 'error', error, usage };
}

/** Resolves true after `milliseconds`, or false as soon as the signal aborts (timer cleared). */
function delay(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Like a pending network request, a hang keeps the process alive until it is aborted. */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const keepAlive = setInterval(() => {}, 60_000);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(keepAlive);
        resolve();
      },
      { once: true },
    );
  });
}
