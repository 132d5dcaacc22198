/** Children that finish as soon as they start: the engine's overhead is all a bench sees. */
import type { SubagentProvider, SubagentRun } from '../src/subagent/contract.js';

let childCount = 0;

export const instantProvider: SubagentProvider = {
  name: 'instant',
  capabilities: {
    outputSchema: true,
    depthLimit: true,
    toolFilter: true,
    persona: true,
    inheritsParentContext: false,
    activity: false,
    workspace: false,
  },
  start(request): SubagentRun {
    childCount += 1;
    const id = `child-${childCount}`;
    return {
      id,
      result: Promise.resolve({
        output: `done: ${request.prompt.length}`,
        stopReason: 'completed',
        sessionId: id,
        usage: { input: 1, output: 1 },
      }),
      cancel: () => {},
      dispose: () => {},
    };
  },
};
