/**
 * Turns whatever a provider call threw or streamed as an error into `ModelErrorInfo`: the HTTP
 * status, whether trying again may help (429, 5xx, network), the provider's requested wait,
 * whether it was an abort and whether the request was larger than the model's context window
 * (never retryable). Never throws. The descriptions are not redacted: callers pass every
 * message through `redactCredentials` (base/credential-redaction.ts) before it leaves the model seam.
 */
import { APICallError } from '@ai-sdk/provider';
import { errorMessage, LoomError } from '../base/errors.js';
import type { ModelErrorInfo } from './contract.js';

const networkErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const networkErrorMessages =
  /fetch failed|failed to fetch|terminated|other side closed|socket hang up/i;
const retryableStreamErrorTypes = /overloaded|rate_limit|server_error|api_error/i;
const maximumCauseDepth = 8;
/**
 * How providers say a request is larger than the context window: OpenAI's code and its and
 * DeepSeek's "maximum context length", Anthropic's "prompt is too long" (and "exceed context
 * limit" when the output limit does not fit), llama.cpp's "exceeds the available context size",
 * and the generic wordings.
 */
const contextOverflowMessages = [
  /context[_\s-]?length[_\s-]?exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /context window/i,
  /exceeds? (the )?(available )?context (size|limit)/i,
];

/** True when a provider's error text says the request did not fit the context window. */
export function isContextOverflowMessage(text: string): boolean {
  return contextOverflowMessages.some((pattern) => pattern.test(text));
}

export function abortedError(): ModelErrorInfo {
  return { message: 'the request was aborted', retryable: false, aborted: true };
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

export function describeFailure(error: unknown): ModelErrorInfo {
  try {
    if (isAbortError(error)) return abortedError();
    const info = describeKnownFailure(error);
    if (isContextOverflow(error, info)) {
      info.contextOverflow = true;
      info.retryable = false;
      delete info.retryAfterMs;
    }
    return info;
  } catch {
    return {
      message: 'the provider failed with an error that could not be read',
      retryable: false,
    };
  }
}

function describeKnownFailure(error: unknown): ModelErrorInfo {
  if (APICallError.isInstance(error)) return describeApiCallError(error);
  if (error instanceof LoomError) return { message: error.message, retryable: false };
  const network = findNetworkCause(error);
  if (network !== undefined) {
    return { message: `network error: ${describeChain(error)}`, retryable: true };
  }
  if (isPayload(error)) return describeStreamedError(error);
  if (typeof error === 'string') {
    return { message: `the provider reported an error: ${error}`, retryable: false };
  }
  return { message: errorMessage(error), retryable: false };
}

/** Reads the message, and for an HTTP error the response body too (it holds OpenAI's `code`). */
function isContextOverflow(error: unknown, info: ModelErrorInfo): boolean {
  if (info.aborted) return false;
  const texts = [info.message];
  if (APICallError.isInstance(error) && error.responseBody) texts.push(error.responseBody);
  if (isPayload(error)) texts.push(JSON.stringify(error));
  return texts.some(isContextOverflowMessage);
}

function describeApiCallError(error: APICallError): ModelErrorInfo {
  const status = error.statusCode;
  if (status === undefined || status < 300) {
    const network = findNetworkCause(error) !== undefined;
    return {
      message: network ? `network error: ${describeChain(error)}` : error.message,
      retryable: error.isRetryable || network,
    };
  }
  const info: ModelErrorInfo = {
    message: `HTTP ${status}: ${error.message}`,
    status,
    retryable: isRetryableStatus(status),
  };
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  if (retryAfterMs !== undefined) info.retryAfterMs = retryAfterMs;
  return info;
}

/** An error object a provider streamed (`{type, message, code}`), not a thrown Error. */
function describeStreamedError(payload: Record<string, unknown>): ModelErrorInfo {
  const message = typeof payload.message === 'string' ? payload.message : JSON.stringify(payload);
  const kind = [payload.type, payload.code].filter((value) => typeof value === 'string').join(' ');
  const status = [payload.status, payload.code].find((value) => typeof value === 'number');
  const retryable =
    retryableStreamErrorTypes.test(kind) ||
    (typeof status === 'number' && isRetryableStatus(status));
  return { message: `the provider reported an error: ${message}`, retryable };
}

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(
  headers: Record<string, string> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lowerCased = new Map(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const milliseconds = Number.parseFloat(lowerCased.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const value = lowerCased.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError'
  );
}

function isPayload(error: unknown): error is Record<string, unknown> {
  return typeof error === 'object' && error !== null && !(error instanceof Error);
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < maximumCauseDepth) {
    if (chain.includes(current)) break;
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function findNetworkCause(error: unknown): Error | undefined {
  for (const cause of causes(error)) {
    if (!(cause instanceof Error)) continue;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && networkErrorCodes.has(code)) return cause;
    if (networkErrorMessages.test(cause.message)) return cause;
  }
  return undefined;
}

function describeChain(error: unknown): string {
  const messages = causes(error).map(errorMessage);
  return [...new Set(messages)].join(': ');
}
