/**
 * Installs context management into a runtime: every agent, root or child (subagents and
 * workflow agents are made by the same runtime), gets its own tracker on core's `model/view`
 * hook (accounting, warning, pruning, overflow recovery) and the `recall` tool. The undo removes
 * both from every agent that has them.
 */
import type { Disposer } from '../core/context.js';
import { modelView } from '../core/model-view.js';
import type { AgentRuntime } from '../core/runtime.js';
import { ContextTracker } from './context-tracker.js';
import { type ContextSettings, DEFAULT_CONTEXT_SETTINGS } from './contract.js';
import { contextTrackerKey, recallTool } from './recall-tool.js';

export interface ContextLayer {
  dispose: Disposer;
}

export function installContext(
  runtime: AgentRuntime,
  settings: Partial<ContextSettings> = {},
): ContextLayer {
  const chosen: Readonly<ContextSettings> = Object.freeze({
    ...DEFAULT_CONTEXT_SETTINGS,
    ...settings,
  });
  const dispose = runtime.installLayer([recallTool()], (handle) => {
    const tracker = new ContextTracker({
      log: handle.log,
      context: handle.context,
      settings: chosen,
    });
    return [
      handle.context.provide(contextTrackerKey, tracker),
      handle.context.handle(modelView, (input, messages) => tracker.prepare(input, messages)),
    ];
  });
  return { dispose };
}
