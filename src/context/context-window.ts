/**
 * The context window of the model an agent talks to: the model catalog's figure when the
 * `context/catalog` service is there and knows the model, else what the client states of itself,
 * else a stated conservative default. Never throws.
 */
import type { Context } from '../core/context.js';
import type { ModelClient } from '../llm/contract.js';
import { modelCatalogKey } from './contract.js';

/** The window assumed for a model nobody states one for. */
export const CONSERVATIVE_WINDOW = 32_000;

export function contextWindowOf(context: Context, model: ModelClient): number {
  const catalog = context.find(modelCatalogKey);
  const known = catalog?.lookup(model.id);
  if (known && known.source !== 'default' && known.context > 0) return known.context;
  const stated = model.limits?.context;
  if (stated !== undefined && stated > 0) return stated;
  if (known && known.context > 0) return known.context;
  return CONSERVATIVE_WINDOW;
}
