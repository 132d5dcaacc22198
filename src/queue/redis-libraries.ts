/**
 * Loads BullMQ and ioredis at first use, through Node's `require`: BullMQ's ES module build has
 * directory imports Node refuses, and loading them only when a queue is used keeps every other
 * command's start fast. Must never load them at module evaluation.
 */
import { createRequire } from 'node:module';

export type BullmqModule = typeof import('bullmq');
export type RedisClass = typeof import('ioredis').Redis;

let bullmq: BullmqModule | undefined;
let redis: RedisClass | undefined;

export function loadBullmq(): BullmqModule {
  bullmq ??= createRequire(import.meta.url)('bullmq') as BullmqModule;
  return bullmq;
}

export function loadRedisClass(): RedisClass {
  redis ??= (createRequire(import.meta.url)('ioredis') as { Redis: RedisClass }).Redis;
  return redis;
}
