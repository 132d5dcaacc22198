/**
 * `/context` for a live agent: assembles the next request's system prompt and tool schemas as
 * core would send them, looks the agent's model up in the catalog, and renders the breakdown
 * (context-breakdown.ts) that the terminal and ACP both show. Reads the agent; never sends a
 * request and never appends to its log.
 */
import type { AgentHandle } from '../core/create-agent.js';
import { offeredTools } from '../core/tool-loading.js';
import { presentedTools } from '../core/tool-presentation.js';
import { contextBreakdown, contextBreakdownText } from './context-breakdown.js';
import { contextWindowOf } from './context-window.js';
import { DEFAULT_CONTEXT_SETTINGS, modelCatalogKey } from './contract.js';
import type { ModelCatalogWithClients } from './model-catalog.js';
import { DEFAULT_MODEL_LIMITS } from './model-catalog.js';
import { contextTrackerKey } from './recall-tool.js';

export async function contextReport(handle: AgentHandle): Promise<string> {
  const { agent, context } = handle;
  const model = agent.model;
  // What the next request offers: deferred tools by name in load_tools until they are loaded.
  const offered = await presentedTools(
    context,
    agent.id,
    offeredTools(context, handle.tools.visible(), handle.log.events),
  );
  const assembled = await handle.prompt.assemble(offered);
  const catalog = context.find(modelCatalogKey) as ModelCatalogWithClients | undefined;
  const info = catalog?.lookup(model.id, model.limits) ?? {
    spec: model.id,
    ...DEFAULT_MODEL_LIMITS,
    images: false,
    tools: true,
    reasoning: false,
    source: 'default' as const,
  };
  const breakdown = contextBreakdown({
    events: handle.log.events,
    system: assembled.system,
    tools: assembled.tools,
    model: info,
    window: contextWindowOf(context, model),
    settings: context.find(contextTrackerKey)?.settings ?? DEFAULT_CONTEXT_SETTINGS,
  });
  return contextBreakdownText(breakdown);
}
