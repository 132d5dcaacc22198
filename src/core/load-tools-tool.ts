/**
 * `load_tools {names}`: loads deferred tools (core/tool-loading), so requests offer their full
 * schemas from the next one on, for the rest of the session. Loading is a `tools/loaded` event
 * in the agent's log and nothing else: it grants no permission and runs no tool. Names the agent
 * has no tool of are refused with the closest deferred names; the known ones still load.
 */
import { LoomError } from '../base/errors.js';
import { editDistance } from './closest-name.js';
import type { SessionLog } from './session-log.js';
import type { ToolDefinition } from './tool-contract.js';
import {
  deferredTools,
  LOAD_TOOLS_PARAMETERS,
  LOAD_TOOLS_TOOL,
  loadedToolNames,
  toolLoadingOf,
} from './tool-loading.js';
import type { ToolPipeline } from './tool-pipeline.js';

/** How many close names an unknown one is answered with. */
const CLOSEST_SHOWN = 3;

export function loadToolsTool(agent: {
  log: SessionLog;
  tools: ToolPipeline;
}): ToolDefinition<{ names: string[] }> {
  return {
    name: LOAD_TOOLS_TOOL,
    description: 'Load deferred tools by name: their full parameters come with your next step.',
    parameters: LOAD_TOOLS_PARAMETERS,
    execute({ names }, execution) {
      const visible = agent.tools.visible();
      const deferred = deferredTools(visible, toolLoadingOf(execution.context)).map(
        (tool) => tool.name,
      );
      const loaded = new Set(loadedToolNames(agent.log.events));
      const fresh: string[] = [];
      const lines: string[] = [];
      const unknown: string[] = [];
      for (const name of new Set(names)) {
        if (deferred.includes(name)) {
          if (loaded.has(name)) lines.push(`${name} is loaded already.`);
          else fresh.push(name);
        } else if (visible.some((tool) => tool.name === name && name !== LOAD_TOOLS_TOOL)) {
          lines.push(`${name} is offered in full already.`);
        } else unknown.push(name);
      }
      if (fresh.length > 0) {
        agent.log.append('tools/loaded', {
          turnId: execution.turnId,
          callId: execution.callId,
          names: fresh,
        });
        lines.unshift(
          `Loaded ${fresh.join(', ')}: callable with full parameters from your next step.`,
        );
      }
      if (unknown.length === 0) return lines.join('\n');
      const problems = unknown.map((name) => unknownLine(name, deferred));
      throw new LoomError('UNKNOWN_TOOL', [...lines, ...problems].join('\n'));
    },
  };
}

function unknownLine(name: string, deferred: readonly string[]): string {
  const close = closestNames(name, deferred);
  return close.length > 0
    ? `There is no tool ${name}; the closest: ${close.join(', ')}.`
    : `There is no tool ${name}; the deferred tools are ${deferred.join(', ') || 'none'}.`;
}

/** The names closest to `name` (a shared part or a likely typo), best first. */
function closestNames(name: string, names: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  return names
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const shared = lower.includes(wanted) || wanted.includes(lower);
      const distance = editDistance(wanted, lower);
      const allowed = Math.max(2, Math.floor(Math.max(wanted.length, lower.length) / 3));
      return { candidate, rank: shared ? 0 : distance, close: shared || distance <= allowed };
    })
    .filter((entry) => entry.close)
    .sort((first, second) => first.rank - second.rank)
    .slice(0, CLOSEST_SHOWN)
    .map((entry) => entry.candidate);
}
