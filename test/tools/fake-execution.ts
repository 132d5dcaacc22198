// Test helpers for the built-in tools: a temporary workspace and a fake ToolExecution.
import { Context } from '../../src/core/context.js';
import type { ToolExecution, ToolOutput } from '../../src/core/tool-contract.js';
import type { Workspace } from '../../src/tools/workspace.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export function temporaryWorkspace(): Workspace {
  return { root: temporaryFolder('loom-tools-'), extraRoots: [] };
}

export function fakeExecution(
  signal: AbortSignal = new AbortController().signal,
  context: Context = new Context(),
): ToolExecution {
  return {
    callId: 'call-1',
    name: 'test',
    arguments: {},
    signal,
    context,
    agentId: 'agent-1',
    turnId: 'turn-1',
    concludeTurn() {},
    token: Object.freeze({}),
  };
}

export function contentOf(output: ToolOutput): string {
  return typeof output === 'string' ? output : output.content;
}

export function isErrorOutput(output: ToolOutput): boolean {
  return typeof output !== 'string' && output.isError === true;
}
