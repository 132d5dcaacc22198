/**
 * Test helpers for structured output: an agent over a scripted model that records every request
 * it is sent, an `echo` tool that counts its runs, and readers for the logged tool results.
 */
import type { SessionEvent } from '../../../src/core/session-events.js';
import type { ToolDefinition } from '../../../src/core/tool-contract.js';
import type { ModelClient, ModelToolSpec } from '../../../src/llm/contract.js';
import { createScriptedModel } from '../../../src/testing/scripted-model.js';
import type { ScriptedModelFile } from '../../../src/testing/scripted-rules.js';
import { agentFixture, type FixtureOptions } from '../../core/agent-fixture.js';

export interface RecordedRequest {
  system: string;
  tools: ModelToolSpec[];
}

export interface RecordingModel extends ModelClient {
  readonly requests: RecordedRequest[];
}

export function recordingModel(file: ScriptedModelFile): RecordingModel {
  const inner = createScriptedModel(file, { name: 'test' });
  const requests: RecordedRequest[] = [];
  return {
    id: inner.id,
    requests,
    stream(request) {
      requests.push({ system: request.system, tools: structuredClone(request.tools) });
      return inner.stream(request);
    },
  };
}

export function countingEcho(): ToolDefinition & { runs: number } {
  const tool = {
    name: 'echo',
    description: 'Echoes its text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    runs: 0,
    execute: (args: { text: string }) => {
      tool.runs += 1;
      return `echo: ${args.text}`;
    },
  };
  return tool;
}

export function structuredAgent(
  file: ScriptedModelFile,
  options: Omit<FixtureOptions, 'model'> = {},
): ReturnType<typeof agentFixture> & { model: RecordingModel } {
  const model = recordingModel(file);
  return { ...agentFixture({ ...options, model }), model };
}

export function toolResults(
  events: readonly SessionEvent[],
): SessionEvent<'tool/result'>['data'][] {
  return events
    .filter((event): event is SessionEvent<'tool/result'> => event.type === 'tool/result')
    .map((event) => event.data);
}
