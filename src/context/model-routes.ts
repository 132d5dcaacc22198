/**
 * Config `models:` holds two kinds of entry: routes (named by a lower-case word, with `provider`)
 * and what Loom knows of a model (named by its spec or `scripted`). This splits them: the model
 * clients get the routes alone, with their route fields only. Must never read the catalog data.
 */
import type { ModelRoute } from '../llm/model-spec.js';
import type { ModelPrices } from './contract.js';

/** What config's `models.NAME` states of a model (NAME a spec, `scripted`, or a route). */
export interface ModelSettings {
  context?: number;
  output?: number;
  prices?: ModelPrices;
  images?: boolean;
}

/** A config `models:` entry: a route (it has `provider`), model settings, or both. */
export type ModelEntry = ModelSettings & Partial<ModelRoute>;

const ROUTE_FIELDS = ['provider', 'baseURL', 'apiKeyEnv', 'model'] as const;

/** The routes of config `models:` (entries with `provider`), with their route fields only. */
export function modelRoutes(
  models: Readonly<Record<string, ModelEntry>> | undefined,
): Record<string, ModelRoute> {
  const routes: Record<string, ModelRoute> = {};
  for (const [name, entry] of Object.entries(models ?? {})) {
    if (entry.provider === undefined) continue;
    const route: ModelRoute = { provider: entry.provider };
    for (const field of ROUTE_FIELDS) {
      const value = entry[field];
      if (field !== 'provider' && value !== undefined) route[field] = value;
    }
    routes[name] = route;
  }
  return routes;
}
