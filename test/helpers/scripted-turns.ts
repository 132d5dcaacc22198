/**
 * Builders for the scripted-model rules of tests: a turn that calls tools step by step and then
 * replies, the `bash` and `subagent` calls, and the turn that lists files and then never answers. They only
 * build data; the scripted model validates it.
 */
import type {
  ScriptedModelFile,
  ScriptedRule,
  ScriptedToolCall,
} from '../../src/llm/scripted-rules.js';

/**
 * On a prompt matching `when`: one step per entry of `steps` (a call, or calls made together in
 * one step), then `reply`.
 */
export function callsThenReply(
  when: string,
  steps: Array<ScriptedToolCall | ScriptedToolCall[]>,
  reply: string,
): ScriptedRule {
  return {
    when,
    steps: [
      ...steps.map((calls) => ({ tools: Array.isArray(calls) ? calls : [calls] })),
      { reply },
    ],
  };
}

/** A `bash` call of `command`, with any further arguments (such as `run_in_background`). */
export function bashCall(command: string, more: Record<string, unknown> = {}): ScriptedToolCall {
  return { name: 'bash', arguments: { command, ...more } };
}

/** A `subagent` call, with any further arguments (such as `run_in_background`). */
export function subagentCall(
  description: string,
  prompt: string,
  more: Record<string, unknown> = {},
): ScriptedToolCall {
  return { name: 'subagent', arguments: { description, prompt, ...more } };
}

/** `stuck` runs one tool (so a tool update is seen), then the model never answers again. */
export const stuckAfterGlob: ScriptedModelFile = {
  rules: [
    {
      when: 'stuck',
      steps: [{ tools: [{ name: 'glob', arguments: { pattern: '*' } }] }, { hang: true }],
    },
  ],
};
