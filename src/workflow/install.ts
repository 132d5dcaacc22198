/**
 * Installs layer 2 into a runtime: the worker-thread workflow service on the root scope, and the
 * `workflow` tool with its usage policy section on every agent the runtime makes. Returns the
 * service and one undo for all of it.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { PriceSource } from '../llm/prices.js';
import type { SubagentServices } from '../subagent/services.js';
import {
  WORKFLOW_POLICY_ALWAYS,
  WORKFLOW_POLICY_EXPLICIT,
  workflowChildInstructions,
} from './authoring-guide.js';
import {
  type WorkflowEngineKind,
  type WorkflowLimits,
  type WorkflowService,
  workflowServiceKey,
} from './contract.js';
import { WorkerWorkflowService } from './host.js';
import { type SavedWorkflowPlaces, savedWorkflowResolver } from './saved-workflows.js';
import { WORKFLOW_TOOL, workflowTool } from './tool.js';

export interface WorkflowLayerOptions {
  limits?: Partial<WorkflowLimits>;
  /** `explicit` (default): the model is told to use workflows only when the user asks for them. */
  offerTool?: 'explicit' | 'always';
  /** The subagent provider a run's children start with; default `spawn`. */
  provider?: string;
  /** Where scripts run (`workflow.engine`). */
  engine?: WorkflowEngineKind;
  /** `$LOOM_HOME`, where runs are kept; absent: runs keep no folder. */
  home?: string;
  /** The project folder, where saved workflows are found. */
  cwd?: string;
  /** Prices by model spec (config `prices`), for each workflow agent's cost. */
  prices?: PriceSource;
  /** The config's route names (`models:`): a script may name them as its agents' models. */
  modelRoutes?: readonly string[];
  /** The runs' default model (a run's own unless its request names one). */
  defaultModel?: string;
}

export interface WorkflowLayer {
  service: WorkflowService;
  dispose: Disposer;
}

export function installWorkflows(
  runtime: AgentRuntime,
  subagents: SubagentServices,
  options: WorkflowLayerOptions = {},
): WorkflowLayer {
  // `$LOOM_HOME/workflows/` and the project's `.loom/workflows/`; an absent folder is not searched.
  const places: SavedWorkflowPlaces = {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.home !== undefined ? { home: options.home } : {}),
  };
  const service = new WorkerWorkflowService({
    context: runtime.root,
    registry: subagents.registry,
    childInstructions: workflowChildInstructions,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.engine !== undefined ? { engine: options.engine } : {}),
    ...(options.home !== undefined ? { home: options.home } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    resolveWorkflow: savedWorkflowResolver(places),
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.modelRoutes ? { modelRoutes: options.modelRoutes } : {}),
    ...(options.defaultModel !== undefined ? { defaultModel: options.defaultModel } : {}),
    toolNames: () => runtime.toolCatalog.entries().map((entry) => entry.name),
  });
  const policy = options.offerTool === 'always' ? WORKFLOW_POLICY_ALWAYS : WORKFLOW_POLICY_EXPLICIT;
  const disposers: Disposer[] = [
    runtime.root.provide(workflowServiceKey, service),
    runtime.offerTools([workflowTool({ service, subagents, context: runtime.root, places })]),
    runtime.onAgent((handle) => {
      const undoSection = handle.prompt.section({
        id: `tool:${WORKFLOW_TOOL}`,
        order: 600,
        // A child that may not run workflows (a workflow's own child) is not told about them.
        text: () => (handle.tools.lookup(WORKFLOW_TOOL) ? policy : ''),
      });
      return undoSection;
    }),
  ];
  return {
    service,
    dispose: disposeAll(disposers),
  };
}
