/**
 * What a workflow script may name on the host, checked there before anything is read: the model
 * specs of its agents (configured routes, built-in providers without a path, or the run's own
 * model) and the files `workflow()` runs (inside the workspace, symlinks resolved). A refusal
 * names the rule, never what a file holds or whether it exists: it must never read the file.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { apiProviders } from '../llm/model-spec.js';
import { WorkflowError } from './contract.js';

/** The models a run's script may name. */
export interface ScriptModels {
  /** The config's route names (`models:`). */
  routes: readonly string[];
  /** The run's own model spec (the request's, else the service's default), if known. */
  runModel?: string;
}

/**
 * Why a script may not name `spec` as an agent's model, or undefined when it may. Pure: a spec
 * that names a path (`scripted:FILE`) is refused unless it is exactly the run's own model.
 */
export function modelRefusal(spec: string, models: ScriptModels): string | undefined {
  const text = spec.trim();
  if (models.runModel !== undefined && text === models.runModel.trim()) return undefined;
  const colon = text.indexOf(':');
  const name = colon === -1 ? text : text.slice(0, colon);
  if (models.routes.includes(name)) return undefined;
  if ((apiProviders as readonly string[]).includes(name)) return undefined;
  const routes = models.routes.length === 0 ? 'none configured' : models.routes.join(', ');
  return `agent model ${JSON.stringify(text.slice(0, 200))} is refused: a script may name only configured routes (${routes}), built-in providers (${apiProviders.join(':MODEL, ')}:MODEL@URL) or the run's own model; path-bearing specs reach the host's files`;
}

/** The refusal of a `workflow()` target outside the workspace; the same whatever is there. */
export function workflowTargetRefusal(workspace: string): WorkflowError {
  return new WorkflowError(
    'INVALID_ARGUMENT',
    `refused: a script may run only saved workflows and files inside the workspace ${workspace} (symlinks resolved); move the file there or save it under .loom/workflows/`,
  );
}

/**
 * `path` (absolute) with its symlinks resolved, when it lies inside `workspace`; else undefined.
 * A path outside the workspace as written is never looked at; one inside has only its existing
 * folders resolved, so a missing leaf is placed where its nearest existing folder really is.
 */
export function workspacePlace(path: string, workspace: string): string | undefined {
  const written = resolve(workspace);
  const real = realPathOf(written) ?? written;
  if (!within(path, written) && !within(path, real)) return undefined;
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    const resolved = realPathOf(existing);
    if (resolved !== undefined) {
      const placed = join(resolved, ...missing.reverse());
      return within(placed, real) ? placed : undefined;
    }
    const parent = dirname(existing);
    if (parent === existing) return undefined;
    missing.push(basename(existing));
    existing = parent;
  }
}

function within(path: string, folder: string): boolean {
  const inner = relative(folder, path);
  return !(inner === '..' || inner.startsWith(`..${sep}`) || isAbsolute(inner));
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
