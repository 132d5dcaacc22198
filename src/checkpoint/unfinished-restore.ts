/**
 * A restore that a crash (`kill -9`) cut short leaves `restore-in-progress` in the shadow
 * repository: the workspace is then partly restored. Opening the workspace reports it with how
 * to finish it; `loom rewind` finishes it (the same restore again) before anything else.
 */
import { existsSync } from 'node:fs';
import { type RestoreMarker, ShadowRepository, shadowFolderOf } from './shadow-repository.js';

/** The notice to show when `workspace` has an unfinished restore; undefined when it has none. */
export function unfinishedRestoreNotice(home: string, workspace: string): string | undefined {
  let marker: RestoreMarker | undefined;
  try {
    if (!existsSync(shadowFolderOf(home, workspace))) return undefined;
    marker = new ShadowRepository(home, workspace).unfinishedRestore();
  } catch {
    return undefined;
  }
  if (!marker) return undefined;
  const what =
    marker.session !== undefined
      ? `of session ${marker.session} to turn ${marker.number ?? marker.turn}`
      : `to checkpoint ${marker.tree}`;
  const finish =
    marker.session !== undefined
      ? `loom rewind --session ${marker.session} --to ${marker.number ?? marker.turn} --files`
      : 'loom rewind --session ID --to TURN --files (any session of this workspace: it finishes this one first)';
  return `an unfinished restore ${what} (started ${marker.started}) left ${workspace} partly restored: finish it with ${finish}`;
}

/** Finishes an unfinished restore of `repository`'s workspace; resolves with it, or undefined when there was none. */
export async function finishUnfinishedRestore(
  repository: ShadowRepository,
): Promise<RestoreMarker | undefined> {
  const marker = repository.unfinishedRestore();
  if (!marker) return undefined;
  const { tree, started: _started, ...about } = marker;
  await repository.restore(tree, about);
  return marker;
}
