/**
 * A connected server's prompts and resources as last listed, and the changes its
 * `notifications/prompts/list_changed` and `notifications/resources/list_changed` bring: the
 * list is fetched again once per notice (notices of one server are handled in turn), kept for
 * completion (which cannot wait for a server) and, when it differs, handed to every watcher with
 * what was added and removed. A listing that fails keeps the last list. Never throws.
 */
import type { Disposer } from '../core/context.js';
import { mcpPromptCommand } from './contract.js';
import { type ListedPrompt, listedPrompt } from './server-catalog.js';
import type { ServerConnection } from './server-connection.js';

/** A resource (or template) to complete after `@`: `server:uri`. */
export interface ResourceChoice {
  /** `server:uri`, or `server:uriTemplate` for a template. */
  mention: string;
  name: string;
  template?: true;
}

export type CatalogKind = 'prompts' | 'resources';

/** What changed in one server's prompts (their commands) or resources (their mentions). */
export interface CatalogChange {
  server: string;
  kind: CatalogKind;
  /** `mcp__SERVER__PROMPT` of each prompt, or `server:uri` of each resource and template, now. */
  names: string[];
  added: string[];
  removed: string[];
}

const listedPrompts = new WeakMap<ServerConnection, ListedPrompt[]>();
const listedChoices = new WeakMap<ServerConnection, ResourceChoice[]>();

/** The connection's prompts as last listed (none yet: empty). */
export function listedPromptsOf(connection: ServerConnection): ListedPrompt[] {
  return listedPrompts.get(connection) ?? [];
}

/** The connection's resources and templates as last listed, as `@` choices. */
export function listedChoicesOf(connection: ServerConnection): ResourceChoice[] {
  return listedChoices.get(connection) ?? [];
}

/** Keeps `prompts` as the connection's prompts (a front end listed them). */
export function keepPrompts(connection: ServerConnection, prompts: ListedPrompt[]): void {
  listedPrompts.set(connection, prompts);
}

/** Lists the connection's prompts again and keeps them; undefined when that fails. */
export async function refreshPrompts(
  connection: ServerConnection,
): Promise<ListedPrompt[] | undefined> {
  if (!connection.offersPrompts) return undefined;
  const prompts = await connection.listPrompts().catch(() => undefined);
  if (!prompts) return undefined;
  const listed = prompts.map(listedPrompt);
  listedPrompts.set(connection, listed);
  return listed;
}

/** Lists the connection's resources and templates again and keeps them as choices. */
export async function refreshChoices(
  connection: ServerConnection,
): Promise<ResourceChoice[] | undefined> {
  if (!connection.offersResources) return undefined;
  const [resources, templates] = await Promise.all([
    connection.listResources().catch(() => undefined),
    connection.listResourceTemplates().catch(() => []),
  ]);
  if (!resources) return undefined;
  const choices: ResourceChoice[] = [
    ...resources.map((resource) => ({
      mention: `${connection.name}:${resource.uri}`,
      name: resource.name,
    })),
    ...templates.map((template) => ({
      mention: `${connection.name}:${template.uriTemplate}`,
      name: template.name,
      template: true as const,
    })),
  ];
  listedChoices.set(connection, choices);
  return choices;
}

interface Watch {
  listeners: Set<(change: CatalogChange) => void>;
  /** The notices of this server, handled one after another. */
  queue: Promise<void>;
}

const watches = new WeakMap<ServerConnection, Watch>();

function namesOf(connection: ServerConnection, kind: CatalogKind): string[] {
  return kind === 'prompts'
    ? listedPromptsOf(connection).map((prompt) => mcpPromptCommand(connection.name, prompt.name))
    : listedChoicesOf(connection).map((choice) => choice.mention);
}

function relist(connection: ServerConnection, kind: CatalogKind): Promise<unknown> {
  return kind === 'prompts' ? refreshPrompts(connection) : refreshChoices(connection);
}

function changed(connection: ServerConnection, watch: Watch, kind: CatalogKind): Promise<void> {
  watch.queue = watch.queue.then(async () => {
    const before = namesOf(connection, kind);
    const beforeJson = JSON.stringify(
      kind === 'prompts' ? listedPromptsOf(connection) : listedChoicesOf(connection),
    );
    if ((await relist(connection, kind)) === undefined) return;
    const afterJson = JSON.stringify(
      kind === 'prompts' ? listedPromptsOf(connection) : listedChoicesOf(connection),
    );
    if (afterJson === beforeJson) return;
    const names = namesOf(connection, kind);
    const change: CatalogChange = {
      server: connection.name,
      kind,
      names,
      added: names.filter((name) => !before.includes(name)),
      removed: before.filter((name) => !names.includes(name)),
    };
    for (const listener of [...watch.listeners]) {
      try {
        listener(change);
      } catch {
        // A watcher must not throw; one that does is not allowed to stop the others.
      }
    }
  });
  return watch.queue;
}

/**
 * Calls `listener` with each change of the connection's prompts or resources from now on. The
 * first watch reads both lists once (when not read yet), so a change knows what it replaced.
 */
export function watchCatalog(
  connection: ServerConnection,
  listener: (change: CatalogChange) => void,
): Disposer {
  let watch = watches.get(connection);
  if (!watch) {
    const created: Watch = { listeners: new Set(), queue: Promise.resolve() };
    watch = created;
    watches.set(connection, created);
    connection.onCatalogChanged = (kind) => changed(connection, created, kind);
    for (const kind of ['prompts', 'resources'] as const) {
      const known =
        kind === 'prompts' ? listedPrompts.has(connection) : listedChoices.has(connection);
      // Read first, before any notice is handled (the queue runs in order).
      if (!known) created.queue = created.queue.then(() => relist(connection, kind)).then(() => {});
    }
  }
  const listeners = watch.listeners;
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
