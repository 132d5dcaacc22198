/**
 * The one-time note for a model the catalog does not know: a watcher over one session's new
 * events that, at the first `context/usage` of a request to such a model (the moment its
 * conservative default window is first applied), returns `unknownModelNote(spec)`, and never
 * again for that model. Front ends print what it returns (stderr headless, a notice in the
 * terminal). It reads events and the catalog only; it never appends to the log.
 */
import type { SessionEvent } from '../core/session-events.js';
import type { ModelClient } from '../llm/contract.js';
import { type ModelCatalogWithClients, unknownModelNote } from './model-catalog.js';

export type UnknownModelWatcher = (event: SessionEvent) => string | undefined;

export function unknownModelNotes(
  catalog: ModelCatalogWithClients,
  currentModel: () => ModelClient,
): UnknownModelWatcher {
  const considered = new Set<string>();
  let requested: string | undefined;
  return (event) => {
    if (event.type === 'request/header') {
      requested = (event.data as SessionEvent<'request/header'>['data']).model;
      return undefined;
    }
    if (event.type !== 'context/usage') return undefined;
    const client = currentModel();
    const spec = requested ?? client.id;
    if (considered.has(spec)) return undefined;
    considered.add(spec);
    const info = catalog.lookup(spec, client.id === spec ? client.limits : undefined);
    return info.source === 'default' ? unknownModelNote(spec) : undefined;
  };
}
