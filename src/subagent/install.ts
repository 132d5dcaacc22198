/**
 * Installs layer 1 into a runtime: the provider registry with `spawn`, `fork`, `acp` (Loom itself
 * over ACP) and the ACP and queue providers of config, the child registry, and the delegation tools on every
 * agent the runtime makes (`report` only in continuable children). Returns the services and one
 * undo for all of it.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { QueueProviderConfig } from '../queue/contract.js';
import { createQueueProvider } from '../queue/queue-provider.js';
import { createAcpProvider } from './acp-provider.js';
import { ChildRegistry } from './children.js';
import type { ChildDescriptor } from './contract.js';
import { createInProcessProvider } from './in-process-provider.js';
import { SubagentRegistry, subagentRegistryKey } from './registry.js';
import { type SubagentServices, subagentServicesKey } from './services.js';
import { STRUCTURED_OUTPUT_TOOL } from './structured-output/capture-instructions.js';
import { interruptAgentTool, listAgentsTool, sendMessageTool } from './tools/continuation-tools.js';
import { reportTool } from './tools/report-tool.js';
import { subagentTool } from './tools/subagent-tool.js';

export const INSTRUCTIONS_SECTION = 'subagent-instructions';

/** An out-of-process provider over ACP (`subagents.providers.NAME` in config). */
export interface AcpProviderConfig {
  type: 'acp';
  /** Absent: Loom itself (`loom acp`). */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** How long a cancelled child may take to stop before its process group is killed; default 3000 ms. */
  cancelGraceMs?: number;
}

/** The ACP provider that is always there: Loom itself (`loom acp`); config may redefine it. */
export const BUILTIN_ACP_PROVIDER = 'acp';

export interface SubagentLayerOptions {
  /** Delegation depth limit; default 3; 0 forbids delegation. */
  maxDepth?: number;
  /** The provider the `subagent` tool uses; default `spawn`. */
  defaultProvider?: string;
  /** Out-of-process providers by name, besides the built-in `acp`. */
  providers?: Readonly<Record<string, AcpProviderConfig | QueueProviderConfig>>;
  /** The model a Loom ACP child runs when its request names none (the parent's default). */
  defaultModel?: string;
}

export interface SubagentLayer {
  services: SubagentServices;
  dispose: Disposer;
}

export function installSubagents(
  runtime: AgentRuntime,
  options: SubagentLayerOptions = {},
): SubagentLayer {
  const registry = new SubagentRegistry(runtime.root);
  const prepare = (handle: AgentHandle, descriptor: ChildDescriptor) => {
    if (descriptor.toolFilter?.length) handle.onClose(handle.tools.restrict(descriptor.toolFilter));
    if (descriptor.instructions) {
      handle.onClose(
        handle.prompt.section({
          id: INSTRUCTIONS_SECTION,
          order: 150,
          text: descriptor.instructions,
        }),
      );
    }
    if (descriptor.continuable) handle.onClose(handle.tools.register(reportTool(services)));
  };
  const services: SubagentServices = {
    runtime,
    registry,
    children: new ChildRegistry(runtime, prepare),
    defaultProvider: options.defaultProvider ?? 'spawn',
  };
  const providerOptions = {
    runtime,
    children: services.children,
    prepare,
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
  };
  const acpProviders: Record<string, AcpProviderConfig> = {
    [BUILTIN_ACP_PROVIDER]: { type: 'acp' },
  };
  const queueProviders: Record<string, QueueProviderConfig> = {};
  for (const [name, config] of Object.entries(options.providers ?? {})) {
    if (config.type === 'acp') acpProviders[name] = config;
    else queueProviders[name] = config;
  }
  const disposers: Disposer[] = [
    registry.register(createInProcessProvider({ ...providerOptions, name: 'spawn' })),
    registry.register(createInProcessProvider({ ...providerOptions, name: 'fork' })),
    ...Object.entries(acpProviders).map(([name, config]) =>
      registry.register(
        createAcpProvider({
          name,
          runtime,
          ...(config.command !== undefined ? { command: config.command } : {}),
          ...(config.args ? { args: config.args } : {}),
          ...(config.env ? { env: config.env } : {}),
          ...(config.cancelGraceMs !== undefined ? { cancelGraceMs: config.cancelGraceMs } : {}),
          ...(options.defaultModel !== undefined ? { defaultModel: options.defaultModel } : {}),
          ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
        }),
      ),
    ),
    ...Object.entries(queueProviders).map(([name, config]) => {
      const provider = createQueueProvider({
        name,
        config,
        cwd: runtime.cwd,
        ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
      });
      const unregister = registry.register(provider);
      // Its Redis connections (opened at its first child) must not keep the process alive.
      return () => {
        unregister();
        void provider.close();
      };
    }),
    runtime.root.provide(subagentRegistryKey, registry),
    runtime.root.provide(subagentServicesKey, services),
    // Made once the providers are registered: the subagent tool's wording depends on them.
    runtime.offerTools(
      [subagentTool, sendMessageTool, interruptAgentTool, listAgentsTool].map((make) =>
        make(services),
      ),
    ),
    // Given only to children that need them; declared so permission rules may name them.
    runtime.toolCatalog.declare([
      reportTool(services),
      { name: STRUCTURED_OUTPUT_TOOL, parameters: { type: 'object' } },
    ]),
  ];
  return {
    services,
    dispose: disposeAll(disposers),
  };
}
