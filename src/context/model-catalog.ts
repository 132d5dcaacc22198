/**
 * The model catalog (SPEC §9): what Loom knows of a model spec, from the models.dev data
 * (catalog-data.ts), then config's `models:` and legacy `prices:`, then what the model's client
 * declares of itself. The data loads at the first lookup, never when the catalog is made. Never
 * throws and never guesses silently: an unknown model is the stated default window.
 */
import { parseModelSpec } from '../llm/model-spec.js';
import { type CatalogData, type CatalogModel, loadCatalogData } from './catalog-data.js';
import { groupedNumber } from './context-lines.js';
import type { ModelCatalog, ModelInfo, ModelPrices } from './contract.js';
import { type ModelEntry, type ModelSettings, modelRoutes } from './model-routes.js';

/**
 * The window assumed for a model the catalog does not know: 32,000 tokens is below every window
 * of the catalog's current chat models with tools (the smallest common ones are 32k), so
 * compaction starts early rather than a request failing; 4,096 output tokens is the smallest
 * output limit such models state.
 */
export const DEFAULT_MODEL_LIMITS: Readonly<{ context: number; output: number }> = Object.freeze({
  context: 32_000,
  output: 4_096,
});

/** What a model's client declares of itself (ModelClient.limits). */
export interface ClientLimits {
  context?: number;
  output?: number;
  images?: boolean;
}

export interface ModelCatalogOptions {
  /** Config `models:`: routes and model settings, by route name, spec, or `scripted`. */
  models?: Readonly<Record<string, ModelEntry>>;
  /** Config `prices:` (legacy), by spec; under `models.SPEC.prices`. */
  prices?: Readonly<Record<string, ModelPrices>>;
  /** The data; default the bundled catalog, read at the first lookup. */
  load?: () => CatalogData;
}

/** The catalog with client limits: what a running agent asks. */
export interface ModelCatalogWithClients extends ModelCatalog {
  /** As `lookup`, with what the model's client declares over config. */
  lookup(spec: string, clientLimits?: ClientLimits): ModelInfo;
}

/** The providers Loom addresses directly, by their models.dev id. */
const NATIVE_PROVIDERS = ['openai', 'anthropic', 'deepseek'] as const;

/** The note for a model whose window is the default, naming the config key to set. */
export function unknownModelNote(spec: string): string {
  return `the model catalog does not know ${spec}; assuming a ${groupedNumber(DEFAULT_MODEL_LIMITS.context)}-token window and ${groupedNumber(DEFAULT_MODEL_LIMITS.output)} output tokens (set models.${configKey(spec)}.context and models.${configKey(spec)}.output in config)`;
}

/** A spec as a config key: quoted when YAML needs it. */
function configKey(spec: string): string {
  return /^[A-Za-z0-9_-]+$/.test(spec) ? spec : `"${spec}"`;
}

function normalizedURL(url: string): string {
  return url.replace(/\/+$/, '').toLowerCase();
}

export function createModelCatalog(options: ModelCatalogOptions = {}): ModelCatalogWithClients {
  const entries = options.models ?? {};
  const routes = modelRoutes(entries);
  const legacyPrices = options.prices ?? {};
  const load = options.load ?? loadCatalogData;
  let data: CatalogData | undefined;
  const catalogData = () => {
    data ??= load();
    return data;
  };

  /** The model id in one provider: exact, any case, `-latest` or the newest dated version. */
  const inProvider = (provider: string, model: string): CatalogModel | undefined => {
    const models = catalogData()[provider]?.models;
    if (!models) return undefined;
    if (Object.hasOwn(models, model)) return models[model];
    const lower = model.toLowerCase();
    const stem = lower.endsWith('-latest') ? lower.slice(0, -'-latest'.length) : lower;
    const names = Object.keys(models);
    const same = names.find((name) => name.toLowerCase() === lower);
    if (same !== undefined) return models[same];
    const dated = names
      .filter((name) => new RegExp(`^${escapeRegExp(stem)}-\\d{8}$`).test(name.toLowerCase()))
      .sort()
      .at(-1);
    if (dated !== undefined) return models[dated];
    const latest = stem === lower ? undefined : names.find((name) => name.toLowerCase() === stem);
    return latest === undefined ? undefined : models[latest];
  };

  /** An OpenAI-compatible model: the provider serving that endpoint, else any provider. */
  const anywhere = (model: string, baseURL: string | undefined): CatalogModel | undefined => {
    const providers = catalogData();
    const ids = Object.keys(providers);
    const served =
      baseURL === undefined
        ? undefined
        : ids.find((id) => {
            const api = providers[id]?.api;
            return api !== undefined && normalizedURL(api) === normalizedURL(baseURL);
          });
    const order = [
      ...(served !== undefined ? [served] : []),
      ...NATIVE_PROVIDERS,
      ...ids.filter((id) => !(NATIVE_PROVIDERS as readonly string[]).includes(id)),
    ];
    for (const id of order) {
      const found = inProvider(id, model);
      if (found) return found;
    }
    return undefined;
  };

  const fromCatalog = (spec: string): { found?: CatalogModel; settings: ModelSettings[] } => {
    let parsed: ReturnType<typeof parseModelSpec>;
    try {
      parsed = parseModelSpec(spec, routes);
    } catch {
      return { settings: [] };
    }
    const settings: ModelSettings[] = [];
    if (parsed.route !== undefined && entries[parsed.route]) {
      settings.push(entries[parsed.route] as ModelEntry);
    }
    if (parsed.provider === 'scripted') return { settings };
    const model = parsed.model;
    if (parsed.provider === 'openai-compatible') {
      const found = anywhere(model, parsed.baseURL);
      return found ? { found, settings } : { settings };
    }
    const direct = inProvider(parsed.provider, model);
    return direct ? { found: direct, settings } : { settings };
  };

  const isScripted = (spec: string) => spec.trim().startsWith('scripted:');

  /** Lookups without client limits, by spec: prices are asked per request. */
  const known = new Map<string, ModelInfo>();
  const lookup = (spec: string, clientLimits?: ClientLimits): ModelInfo => {
    if (clientLimits === undefined) {
      let info = known.get(spec);
      if (!info) {
        info = resolveInfo(spec);
        known.set(spec, info);
      }
      return copyOf(info);
    }
    return resolveInfo(spec, clientLimits);
  };

  const resolveInfo = (spec: string, clientLimits?: ClientLimits): ModelInfo => {
    const text = spec.trim();
    const { found, settings } = fromCatalog(text);
    const info: ModelInfo = found
      ? {
          spec: text,
          context: found.context,
          output: found.output,
          ...(found.prices ? { prices: { ...found.prices } } : {}),
          images: found.images,
          tools: found.tools,
          reasoning: found.reasoning,
          source: 'catalog',
        }
      : {
          spec: text,
          ...DEFAULT_MODEL_LIMITS,
          images: false,
          tools: true,
          reasoning: false,
          source: 'default',
        };
    const legacy = Object.hasOwn(legacyPrices, text) ? legacyPrices[text] : undefined;
    if (legacy) info.prices = { ...legacy };
    if (isScripted(text) && entries.scripted) settings.push(entries.scripted);
    if (Object.hasOwn(entries, text) && !isRouteName(text))
      settings.push(entries[text] as ModelEntry);
    for (const setting of settings) applySettings(info, setting, 'config');
    if (clientLimits) applySettings(info, clientLimits, 'client');
    return info;
  };

  const isRouteName = (name: string) => Object.hasOwn(routes, name);

  const list = (filter?: string): ModelInfo[] => {
    const specs = new Set<string>();
    const providers = catalogData();
    for (const id of NATIVE_PROVIDERS) {
      for (const model of Object.keys(providers[id]?.models ?? {})) specs.add(`${id}:${model}`);
    }
    for (const [id, provider] of Object.entries(providers)) {
      if ((NATIVE_PROVIDERS as readonly string[]).includes(id) || provider.api === undefined) {
        continue;
      }
      for (const model of Object.keys(provider.models)) {
        specs.add(`openai-compatible:${model}@${provider.api}`);
      }
    }
    for (const [name, entry] of Object.entries(entries)) {
      if (entry.provider === undefined) specs.add(name);
      else if (entry.model !== undefined) specs.add(name);
    }
    const needle = filter?.trim().toLowerCase() ?? '';
    return [...specs]
      .filter((spec) => spec.toLowerCase().includes(needle))
      .sort()
      .map((spec) => lookup(spec));
  };

  return { lookup, list };
}

/** A copy a caller may change without changing the catalog's. */
function copyOf(info: ModelInfo): ModelInfo {
  return info.prices ? { ...info, prices: { ...info.prices } } : { ...info };
}

function applySettings(
  info: ModelInfo,
  settings: ModelSettings | ClientLimits,
  source: 'config' | 'client',
): void {
  if (settings.context !== undefined) {
    info.context = settings.context;
    info.source = source;
  }
  if (settings.output !== undefined) info.output = settings.output;
  if (settings.images !== undefined) info.images = settings.images;
  if ('prices' in settings && settings.prices !== undefined) info.prices = { ...settings.prices };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
