/**
 * Test helpers for structured output: an agent over a scripted model that records every request
 * it is sent, an `echo` tool that counts its runs, and readers for the logged tool results.
 */
import type { ScriptedModelFile } from '../../../src/testing/scripted-rules.js';
import { agentFixture, type FixtureOptions } from '../../core/agent-fixture.js';
import { countingEcho } from '../../helpers/echo-tool.js';
import { type RecordingModel, recordingModel } from '../../helpers/recording-model.js';
import { toolResults } from '../../helpers/session-files.js';

export { countingEcho, type RecordingModel, recordingModel, toolResults };

export function structuredAgent(
  file: ScriptedModelFile,
  options: Omit<FixtureOptions, 'model'> = {},
): ReturnType<typeof agentFixture> & { model: RecordingModel } {
  const model = recordingModel(file);
  return { ...agentFixture({ ...options, model }), model };
}
