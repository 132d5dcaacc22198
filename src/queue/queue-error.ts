/**
 * The error of the queue layer: a queue that cannot be used (QUEUE_UNAVAILABLE: its Redis
 * variable unset, Redis unreachable, the provider closed) or a job refused by a worker
 * (WORKSPACE_MISMATCH). Messages name the provider, queue and variable, never the Redis URL.
 */
import { LoomError } from '../base/errors.js';
import type { QueueErrorCode } from './contract.js';

export class QueueError extends LoomError<QueueErrorCode> {}
