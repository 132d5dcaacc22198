/**
 * Test helpers for structured output: an agent over a scripted model (whose `calls` record every
 * request it is sent), an `echo` tool that counts its runs, and readers for the logged tool results.
 */
import { createScriptedModel, type ScriptedModelClient } from '../../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../../src/llm/scripted-rules.js';
import { agentFixture, type FixtureOptions } from '../../core/agent-fixture.js';
import { countingEcho } from '../../helpers/echo-tool.js';
import { toolResults } from '../../helpers/session-files.js';

export { countingEcho, toolResults };

export function structuredAgent(
  file: ScriptedModelFile,
  options: Omit<FixtureOptions, 'model'> = {},
): ReturnType<typeof agentFixture> & { model: ScriptedModelClient } {
  const model = createScriptedModel(file, { name: 'test' });
  return { ...agentFixture({ ...options, model }), model };
}
