/**
 * The scripted model (which records every request in `calls`) with what it does not keep: a test
 * can wait for a request instead of for time, and read the prompts whose requests were aborted,
 * in the order their signals fired.
 */
import type { ModelClient } from '../../src/llm/contract.js';
import type { ScriptedCall } from '../../src/llm/scripted-calls.js';
import { createScriptedModel, type ScriptedModelClient } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';

export interface WaitingModel extends ScriptedModelClient {
  /** Prompts of requests in the order their signals aborted. */
  readonly aborts: string[];
  /**
   * Resolves once the `occurrence`-th request (default the first) whose prompt matches has been
   * sent, counting earlier ones.
   */
  waitForRequest(pattern: RegExp, occurrence?: number): Promise<ScriptedCall>;
}

export function waitingModel(file: ScriptedModelFile, name = 'test'): WaitingModel {
  const inner = createScriptedModel(file, { name });
  const aborts: string[] = [];
  const waiters: Array<{
    pattern: RegExp;
    occurrence: number;
    resolve: (call: ScriptedCall) => void;
  }> = [];
  const matching = (pattern: RegExp) => inner.calls.filter((call) => pattern.test(call.prompt));
  const stream: ModelClient['stream'] = (request) => {
    const recorded = inner.calls.length;
    const parts = inner.stream(request);
    const call = inner.calls[recorded];
    if (!call) return parts;
    request.signal.addEventListener('abort', () => aborts.push(call.prompt), { once: true });
    for (const waiter of [...waiters]) {
      if (matching(waiter.pattern).length < waiter.occurrence) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(call);
    }
    return parts;
  };
  return {
    id: inner.id,
    calls: inner.calls,
    unusedRules: () => inner.unusedRules(),
    aborts,
    stream,
    waitForRequest(pattern, occurrence = 1) {
      const earlier = matching(pattern)[occurrence - 1];
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve) => waiters.push({ pattern, occurrence, resolve }));
    },
  };
}
