/**
 * Where a repository's setup is looked for: for a kind of entry (`agents`, `skills`,
 * `commands`), the folders in precedence order, the project's `.loom/` first, then its
 * `.claude/`, then the person's own (`$LOOM_HOME`, by default `~/.loom`). Pure paths: it never
 * checks that a folder exists.
 */
import { join } from 'node:path';

export type SetupOrigin = 'project' | 'claude' | 'personal';

export interface SetupFolder {
  origin: SetupOrigin;
  path: string;
}

export function setupFolders(
  kind: 'agents' | 'skills' | 'commands',
  where: { workspace: string; home: string },
): SetupFolder[] {
  return [
    { origin: 'project', path: join(where.workspace, '.loom', kind) },
    { origin: 'claude', path: join(where.workspace, '.claude', kind) },
    { origin: 'personal', path: join(where.home, kind) },
  ];
}
