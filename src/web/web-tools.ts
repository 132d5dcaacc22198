/**
 * The web tools in one list a composer offers: `web_fetch` always, `web_search` only when a
 * provider is configured (`web.search`). `webSettings` fills config `web:` in with its defaults.
 * Must never register anything itself; the caller owns the tool registry.
 */
import type { ToolDefinition } from '../core/tool-contract.js';
import type { ModelClient } from '../llm/contract.js';
import {
  DEFAULT_WEB_SETTINGS,
  type HostVerdict,
  type SearchSettings,
  type WebSettings,
} from './contract.js';
import { webFetchTool } from './fetch-tool.js';
import { webSearchTool } from './search-tool.js';

/** Config `web:` as plain values (its fields are validated by config). */
export interface WebConfigValues {
  maxBytes?: number;
  timeoutMs?: number;
  allowPrivate?: boolean;
  model?: string;
  search?: SearchSettings;
}

export function webSettings(config: WebConfigValues | undefined): WebSettings {
  return {
    ...DEFAULT_WEB_SETTINGS,
    ...(config?.maxBytes !== undefined ? { maxBytes: config.maxBytes } : {}),
    ...(config?.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config?.allowPrivate !== undefined ? { allowPrivate: config.allowPrivate } : {}),
    ...(config?.model !== undefined ? { model: config.model } : {}),
    ...(config?.search !== undefined ? { search: config.search } : {}),
  };
}

export interface WebToolsOptions {
  settings: WebSettings;
  /** Turns `web.model` into a client (the runtime's model resolver); called at first use. */
  resolveModel?: (spec: string) => ModelClient;
  /** The first matching permission rule's action for a call of web_fetch on `url`. */
  redirectVerdict?: (url: URL) => HostVerdict;
}

export function webTools(options: WebToolsOptions): ToolDefinition[] {
  const { settings, resolveModel } = options;
  const model = settings.model;
  const tools = [
    webFetchTool({
      settings,
      ...(model !== undefined && resolveModel ? { condenseModel: () => resolveModel(model) } : {}),
      ...(options.redirectVerdict ? { redirectVerdict: options.redirectVerdict } : {}),
    }),
  ];
  if (settings.search) {
    tools.push(webSearchTool({ search: settings.search, timeoutMs: settings.timeoutMs }));
  }
  return tools;
}
