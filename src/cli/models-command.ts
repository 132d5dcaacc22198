/**
 * `loom models [--json] [FILTER]`: what Loom knows of each model (SPEC §9): window, output
 * limit, prices per million tokens and capabilities, from the catalog with config's `models:`
 * and `prices:` over it. FILTER is a case-insensitive substring of the spec; a spec the list
 * does not hold is looked up on its own, and one the catalog does not know is said so, with the
 * config key to set (exit 1). Reads only.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import type { ModelInfo, ModelPrices } from '../context/contract.js';
import { createModelCatalog, unknownModelNote } from '../context/model-catalog.js';
import { loomHome } from '../core/home.js';
import { plainTable } from './plain-table.js';

export interface ModelsOptions {
  json?: boolean;
  cwd?: string;
}

const COLUMNS = [
  'SPEC',
  'CONTEXT',
  'OUTPUT',
  'INPUT $/M',
  'OUTPUT $/M',
  'CACHE READ $/M',
  'CACHE WRITE $/M',
  'CAPABILITIES',
  'SOURCE',
] as const;

function priceText(prices: ModelPrices | undefined, field: keyof ModelPrices): string {
  const value = prices?.[field];
  return value === undefined ? '-' : String(value);
}

function capabilities(info: ModelInfo): string {
  const names = [
    info.tools ? 'tools' : undefined,
    info.reasoning ? 'reasoning' : undefined,
    info.images ? 'images' : undefined,
  ].filter((name) => name !== undefined);
  return names.length > 0 ? names.join(',') : '-';
}

/** The table of `loom models`. */
export function formatModels(models: readonly ModelInfo[]): string {
  return plainTable(
    COLUMNS,
    models.map((info) => [
      info.spec,
      String(info.context),
      String(info.output),
      priceText(info.prices, 'input'),
      priceText(info.prices, 'output'),
      priceText(info.prices, 'cacheRead'),
      priceText(info.prices, 'cacheWrite'),
      capabilities(info),
      info.source,
    ]),
  );
}

export function modelsCommand(filter: string | undefined, options: ModelsOptions): number {
  const config = loadConfig(loomHome(), resolve(options.cwd ?? process.cwd()));
  const catalog = createModelCatalog({
    ...(config.models ? { models: config.models } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
  });
  let models = catalog.list(filter);
  if (models.length === 0 && filter !== undefined && filter.trim() !== '') {
    const single = catalog.lookup(filter);
    if (single.source !== 'default') models = [single];
  }
  if (options.json) process.stdout.write(`${JSON.stringify(models)}\n`);
  else if (models.length > 0) process.stdout.write(formatModels(models));
  if (models.length > 0) return 0;
  const spec = filter?.trim() ?? '';
  // A bare name is a model id: the key to set is its spec, with the provider that serves it.
  const note = unknownModelNote(spec.includes(':') ? spec : `PROVIDER:${spec}`);
  process.stderr.write(`loom: no known model matches "${spec}": ${note}\n`);
  return 1;
}
