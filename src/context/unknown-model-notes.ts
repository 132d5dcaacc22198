/**
 * The one-time note for a model the catalog does not know: a watcher over one session's new
 * events that, at the first `context/usage` of a request to such a model (the moment its
 * conservative default window is first applied), returns `unknownModelNote(spec)`, and never
 * again for that model. Front ends print what it returns (stderr headless, a notice in the
 * terminal). Scripted models are never noted (their window is the file's `context`, else the
 * default). It reads events and the catalog only; it never appends to the log.
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
    // A scripted file is the user's own offline stand-in: its window is `"context"` in the file,
    // else the stated default (SPEC §3), and a note on every test run would only be noise.
    if (considered.has(spec) || spec.startsWith('scripted:')) return undefined;
    considered.add(spec);
    const info = catalog.lookup(spec, client.id === spec ? client.limits : undefined);
    return info.source === 'default' ? unknownModelNote(spec) : undefined;
  };
}
