/**
 * The script of `loom workflow run|check`: found (an existing FILE, else a saved NAME), read, and
 * split into meta and body. Shared by a fresh run (workflow-command.ts) and a resumed one
 * (workflow-resume.ts); it must never start or resume a run itself.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import { loomHome } from '../core/home.js';
import type { WorkflowMeta } from '../workflow/contract.js';
import { validateMeta } from '../workflow/meta.js';
import { splitMetaHeader } from '../workflow/meta-header.js';
import { resolveWorkflowTarget, type SavedWorkflowPlaces } from '../workflow/saved-workflows.js';
import { readJsonOption } from './workflow-options.js';

export interface PreparedScript {
  meta: WorkflowMeta;
  /** The script body, without its meta header. */
  body: string;
  /** The absolute path of the file the script came from. */
  path: string;
}

/**
 * Finds the script (an existing FILE, else a saved NAME) and reads it; meta comes from `--meta`
 * when given, else from the file's header, else fails.
 */
export function prepareScript(
  target: string,
  metaOption: string | undefined,
  places: SavedWorkflowPlaces = { cwd: process.cwd(), home: loomHome() },
): PreparedScript {
  const { path } = resolveWorkflowTarget(target, places);
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `cannot read the workflow script ${path}: ${(error as Error).message}`,
    );
  }
  const split = splitMetaHeader(source, path);
  const body = split ? split.body : source;
  if (metaOption !== undefined)
    return { meta: validateMeta(readJsonOption('--meta', metaOption)), body, path };
  if (split) return { meta: validateMeta(split.meta), body, path };
  throw new UserError(
    'INVALID_ARGUMENT',
    `${path} has no meta: pass --meta JSON|FILE, or start the file with a header \`export const meta = { name: …, description: … };\``,
  );
}
