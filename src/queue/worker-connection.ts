/**
 * The Redis side of `loom worker`: the URL from the environment variable config names, and a
 * connection that is ready or has failed once. The URL may hold a password: it never reaches a
 * message, a log or an error; failures name the variable and the error code only.
 */
import type { Redis } from 'ioredis';
import { LoomError, UserError } from '../core/errors.js';
import type { QueueProviderConfig } from './contract.js';
import { loadRedisClass } from './redis-libraries.js';

/** The BullMQ queue of provider `name`: config's `queue`, default `loom-NAME`. */
export function queueNameOf(name: string, config: QueueProviderConfig): string {
  return config.queue ?? `loom-${name}`;
}

/** The Redis URL from `config.redis.urlEnv`; missing or empty: a UserError naming the variable. */
export function redisUrlFrom(
  name: string,
  config: QueueProviderConfig,
  env: NodeJS.ProcessEnv,
): string {
  const variable = config.redis.urlEnv;
  const url = env[variable];
  if (url === undefined || url.trim() === '') {
    throw new UserError(
      'QUEUE_UNAVAILABLE',
      `queue provider ${name} reads the Redis URL from $${variable}, which is not set`,
    );
  }
  return url;
}

/**
 * Connects (ioredis, with the options BullMQ needs of a worker's connection) and waits until it
 * is ready; the first failure before that closes it and throws QUEUE_UNAVAILABLE naming
 * `variable` and the error's code, never the URL.
 */
export async function connectRedis(url: string, variable: string): Promise<Redis> {
  const Redis = loadRedisClass();
  const connection = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  // A listener, so ioredis never prints an error itself (its message may name the host).
  let firstError: unknown;
  connection.on('error', (error: unknown) => {
    firstError ??= error;
  });
  try {
    await connection.connect();
    return connection;
  } catch (error) {
    connection.disconnect();
    const code = ((firstError ?? error) as NodeJS.ErrnoException).code;
    throw new LoomError(
      'QUEUE_UNAVAILABLE',
      `cannot reach the Redis of $${variable}${code ? ` (${code})` : ''}`,
    );
  }
}

/** A Redis error for a log line: its code, or its message (ioredis messages hold no password). */
export function describeRedisError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
