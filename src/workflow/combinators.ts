/**
 * `parallel` and `pipeline`, the script's fan-out combinators. An item whose work throws an
 * ordinary error becomes null; a fatal `WorkflowError` (only the engine can make one) is
 * re-thrown and ends the call at once. Script functions are called, never copied; argument
 * misuse throws synchronously, and a stopped run makes every call fail with the stop error.
 */
import type { WorkflowError, WorkflowLimits } from './contract.js';
import { describe, fatal, type HookHost, handOut, isFatal } from './hooks.js';

function checkItemCount(hook: string, count: number, limits: WorkflowLimits): void {
  if (count > limits.maxItemsPerCall) {
    throw fatal(
      'ITEM_CAP',
      `${hook} was given ${count} items; the limit is ${limits.maxItemsPerCall} a call (maxItemsPerCall)`,
    );
  }
}

/** The work, unless the run is cancelled first. */
function untilCancelled<T>(host: HookHost, work: Promise<T>): Promise<T> {
  return handOut(Promise.race([work, host.cancellation]));
}

/** Null for an ordinary failure; a fatal one rejects. */
function nullUnlessFatal(error: unknown): null {
  if (isFatal(error)) throw error;
  return null;
}

function settleItem(thunk: () => unknown): Promise<unknown> {
  let started: unknown;
  try {
    started = thunk();
  } catch (error) {
    return isFatal(error) ? Promise.reject(error) : Promise.resolve(null);
  }
  return Promise.resolve(started).then(undefined, nullUnlessFatal);
}

export function createParallelHook(host: HookHost) {
  return function parallel(thunks: unknown): Promise<unknown[]> {
    const stopped = host.stopped();
    if (stopped) return handOut(Promise.reject(stopped));
    if (!Array.isArray(thunks)) {
      throw fatal(
        'INVALID_ARGUMENT',
        `parallel() takes an array of functions (such as () => agent(...)), not ${describe(thunks)}`,
      );
    }
    checkItemCount('parallel()', thunks.length, host.limits);
    const list: unknown[] = Array.from(thunks);
    list.forEach((thunk, index) => {
      if (typeof thunk !== 'function') {
        throw fatal(
          'INVALID_ARGUMENT',
          `parallel() item ${index} must be a function (such as () => agent(...)), not ${describe(thunk)}`,
        );
      }
    });
    const items = list.map((thunk) => settleItem(thunk as () => unknown));
    return untilCancelled(host, Promise.all(items));
  };
}

type Stage = (previous: unknown, item: unknown, index: number) => unknown;

async function runItem(host: HookHost, stages: Stage[], item: unknown, index: number) {
  let value = item;
  for (const stage of stages) {
    const stopped: WorkflowError | undefined = host.stopped();
    if (stopped) throw stopped;
    try {
      value = await stage(value, item, index);
    } catch (error) {
      return nullUnlessFatal(error);
    }
  }
  return value;
}

export function createPipelineHook(host: HookHost) {
  return function pipeline(items: unknown, ...stages: unknown[]): Promise<unknown[]> {
    const stopped = host.stopped();
    if (stopped) return handOut(Promise.reject(stopped));
    if (!Array.isArray(items)) {
      throw fatal(
        'INVALID_ARGUMENT',
        `pipeline() takes an array of items first, not ${describe(items)}`,
      );
    }
    checkItemCount('pipeline()', items.length, host.limits);
    if (stages.length === 0) {
      throw fatal(
        'INVALID_ARGUMENT',
        'pipeline() needs at least one stage function after the items',
      );
    }
    stages.forEach((stage, index) => {
      if (typeof stage !== 'function') {
        throw fatal(
          'INVALID_ARGUMENT',
          `pipeline() stage ${index + 1} must be a function (previous, item, index) => ..., not ${describe(stage)}`,
        );
      }
    });
    const list: unknown[] = Array.from(items);
    const runs = list.map((item, index) => runItem(host, stages as Stage[], item, index));
    return untilCancelled(host, Promise.all(runs));
  };
}
