/**
 * The `echo` tool of the agent tests: answers `echo: TEXT`, safe to run alongside itself.
 * `countingEcho()` also counts its runs.
 */
import type { ToolDefinition } from '../../src/core/tool-contract.js';

const echoParameters = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};

export const echoTool: ToolDefinition = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: echoParameters,
  concurrencySafe: true,
  execute: (args: { text: string }) => `echo: ${args.text}`,
};

export function countingEcho(): ToolDefinition & { runs: number } {
  const tool = {
    name: 'echo',
    description: 'Echoes its text.',
    parameters: echoParameters,
    runs: 0,
    execute: (args: { text: string }) => {
      tool.runs += 1;
      return `echo: ${args.text}`;
    },
  };
  return tool;
}
