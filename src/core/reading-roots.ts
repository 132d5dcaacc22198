/**
 * Folders outside the workspace that the file tools may read but never write: a person's own
 * skills live under `$LOOM_HOME/skills/`, and the `skill` tool points the model at their files.
 * A layer adds a folder on a scope (the runtime's root for every agent); reading tools
 * (`read_file`, `glob`, `grep`) look them up through the calling agent's scope, writing tools
 * never do. Adding a folder never widens what bash may reach.
 */
import { type Context, type Disposer, serviceKey } from './context.js';

export interface ReadingRoots {
  /** The folders added on this scope and its parents, absolute. */
  folders(): string[];
}

class ScopeReadingRoots implements ReadingRoots {
  readonly own: string[] = [];

  constructor(private readonly parent: ReadingRoots | undefined) {}

  folders(): string[] {
    return [...(this.parent?.folders() ?? []), ...this.own];
  }
}

const readingRootsKey = serviceKey<ScopeReadingRoots>('core/reading-roots');
/** Each scope's own registry, so a scope never edits the one a parent provided. */
const owned = new WeakMap<Context, ScopeReadingRoots>();

/** Lets the reading tools of `context` (and its children) read under `folder`; returns the undo. */
export function addReadingRoot(context: Context, folder: string): Disposer {
  let roots = owned.get(context);
  if (!roots) {
    roots = new ScopeReadingRoots(context.find(readingRootsKey));
    owned.set(context, roots);
    context.provide(readingRootsKey, roots);
  }
  const entry = roots.own;
  entry.push(folder);
  return () => {
    const index = entry.indexOf(folder);
    if (index >= 0) entry.splice(index, 1);
  };
}

/** The folders the reading tools of `context` may read beyond the workspace; none by default. */
export function readingRootsOf(context: Context): string[] {
  return context.find(readingRootsKey)?.folders() ?? [];
}
