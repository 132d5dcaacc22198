/**
 * The scripted model, recording every request it is sent (prompt, system, tools, messages) and
 * the prompts whose requests were aborted, so a test can wait for a request instead of for time.
 */
import type { ModelClient, ModelMessage, ModelToolSpec } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/testing/scripted-model.js';
import type { ScriptedModelFile } from '../../src/testing/scripted-rules.js';

export interface RecordedRequest {
  /** The latest user message of the request: what a scripted rule was matched against. */
  prompt: string;
  system: string;
  /** The names of the offered tools. */
  tools: string[];
  /** The offered tools in full. */
  toolSpecs: ModelToolSpec[];
  messages: ModelMessage[];
}

export interface RecordingModel extends ModelClient {
  readonly requests: RecordedRequest[];
  /** Prompts of requests in the order their signals aborted. */
  readonly aborts: string[];
  /**
   * Resolves once the `occurrence`-th request (default the first) whose prompt matches has been
   * sent, counting earlier ones.
   */
  waitForRequest(pattern: RegExp, occurrence?: number): Promise<RecordedRequest>;
}

export function recordingModel(file: ScriptedModelFile, name = 'test'): RecordingModel {
  const inner = createScriptedModel(file, { name });
  const requests: RecordedRequest[] = [];
  const aborts: string[] = [];
  const waiters: Array<{
    pattern: RegExp;
    occurrence: number;
    resolve: (request: RecordedRequest) => void;
  }> = [];
  const matching = (pattern: RegExp) => requests.filter((request) => pattern.test(request.prompt));
  return {
    id: inner.id,
    requests,
    aborts,
    stream(request) {
      const prompt = latestUserMessage(request.messages);
      const recorded: RecordedRequest = {
        prompt,
        system: request.system,
        tools: request.tools.map((tool) => tool.name),
        toolSpecs: structuredClone(request.tools),
        messages: structuredClone(request.messages),
      };
      requests.push(recorded);
      request.signal.addEventListener('abort', () => aborts.push(prompt), { once: true });
      for (const waiter of [...waiters]) {
        if (matching(waiter.pattern).length < waiter.occurrence) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(recorded);
      }
      return inner.stream(request);
    },
    waitForRequest(pattern, occurrence = 1) {
      const earlier = matching(pattern)[occurrence - 1];
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve) => waiters.push({ pattern, occurrence, resolve }));
    },
  };
}

function latestUserMessage(messages: readonly ModelMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
