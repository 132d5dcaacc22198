/**
 * Reaching Redis for a queue: the URL from the environment variable config names, and a first
 * connection that gives up after a bounded time instead of retrying for ever. The URL may hold a
 * password: it never reaches an error, a log or an event (`withoutSecret` scrubs it from a
 * driver's message).
 */
import type { Redis } from 'ioredis';
import { errorMessage } from '../base/errors.js';
import { type QueueProviderConfig, queueNameOf } from './contract.js';
import { QueueError } from './queue-error.js';
import { loadQueueLibraries } from './queue-libraries.js';

/** How long the first connection to Redis may take before the queue counts as unavailable. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** Who is connecting, for error messages: `queue provider NAME (queue QUEUE)`. */
export interface RedisTarget {
  label: string;
  /** The environment variable the URL came from. */
  variable: string;
  url: string;
}

/** The Redis of queue provider `name`: its URL from the variable config names, and a label. */
export function redisTargetOf(
  name: string,
  config: QueueProviderConfig,
  env: Readonly<Record<string, string | undefined>>,
): RedisTarget {
  const label = `queue provider ${name} (queue ${queueNameOf(name, config)})`;
  const variable = config.redis.urlEnv;
  return { label, variable, url: redisUrlFrom(env, variable, label) };
}

/** The Redis URL in `env[variable]`, or QUEUE_UNAVAILABLE naming the variable (never a value). */
export function redisUrlFrom(
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
  label: string,
): string {
  const url = env[variable];
  if (url === undefined || url.trim() === '') {
    throw new QueueError(
      'QUEUE_UNAVAILABLE',
      `${label}: the environment variable ${variable} (the Redis URL) is not set`,
    );
  }
  return url.trim();
}

/** `text` with the URL and its password replaced by `***`. */
export function withoutSecret(text: string, url: string): string {
  let clean = text.split(url).join('***');
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // Not a URL ioredis understands either; the whole text was scrubbed of it above.
  }
  if (password.length > 0) clean = clean.split(password).join('***');
  return clean;
}

/** The failure of reaching Redis, in words naming the target and the variable, not the URL. */
export function unavailable(target: RedisTarget, cause: unknown): QueueError {
  // The code alone when there is one: a driver's message names the host and port.
  const reason = describeRedisError(cause, target.url);
  return new QueueError(
    'QUEUE_UNAVAILABLE',
    `${target.label}: cannot reach Redis (the URL in ${target.variable}): ${reason}`,
  );
}

/**
 * A connected ioredis client. Before it is first ready it does not retry: a refused or silent
 * server fails within `timeoutMs`. Once ready, it reconnects after a drop like any client.
 * `blocking` makes it fit a BullMQ Worker (whose commands wait on Redis without a retry limit).
 */
export async function connectRedis(
  target: RedisTarget,
  timeoutMs: number,
  options: { blocking?: boolean } = {},
): Promise<Redis> {
  const { Redis } = loadQueueLibraries();
  let ready = false;
  const client = new Redis(target.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: options.blocking ? null : 2,
    retryStrategy: (times) => (ready ? Math.min(times * 200, 5000) : null),
  });
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    ready = true;
    return client;
  } catch (error) {
    client.disconnect();
    throw unavailable(target, lastError ?? error);
  } finally {
    clearTimeout(timer);
  }
}

/** A Redis error for a log line: its code, or its message scrubbed of the URL. */
export function describeRedisError(error: unknown, url: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return withoutSecret(errorMessage(error), url);
}
