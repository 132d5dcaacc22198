/**
 * Loads BullMQ and ioredis at their first use, never at start-up: a command that queues no child
 * and runs no worker never reads them. Through `require`, since BullMQ's ESM build has directory
 * imports Node refuses.
 */
import { createRequire } from 'node:module';

export interface QueueLibraries {
  bullmq: typeof import('bullmq');
  Redis: typeof import('ioredis').Redis;
}

let loaded: QueueLibraries | undefined;

export function loadQueueLibraries(): QueueLibraries {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    loaded = {
      bullmq: require('bullmq') as typeof import('bullmq'),
      Redis: (require('ioredis') as typeof import('ioredis')).Redis,
    };
  }
  return loaded;
}
