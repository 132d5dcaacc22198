/**
 * `loom workflow run --resume RUN_ID [NAME|FILE]`: what a resumed attempt starts with. The script
 * is the given file's (edited scripts resume: unchanged calls still hit the journal), else the
 * one the run kept; meta, args, model, provider and limits are the kept ones unless a flag says
 * otherwise. It reads the run's folder only; the service checks that the run is not live.
 */
import type { WorkflowLimits } from '../workflow/contract.js';
import { validateMeta } from '../workflow/meta.js';
import { checkRunId, readStoredRun } from '../workflow/run-store.js';
import {
  flagLimits,
  parseArgsOption,
  readJsonOption,
  type WorkflowRunOptions,
} from './workflow-options.js';
import { type PreparedScript, prepareScript } from './workflow-script.js';

export interface PreparedResume extends Omit<PreparedScript, 'path'> {
  /** The file the script came from, when it came from one. */
  path?: string;
  args: Record<string, unknown>;
  limits: Partial<WorkflowLimits>;
  model?: string;
  provider?: string;
}

/** Throws a WorkflowError or UserError naming what is wrong (no such run, a bad flag). */
export function prepareResume(
  home: string,
  runId: string,
  target: string | undefined,
  options: WorkflowRunOptions,
): PreparedResume {
  const stored = readStoredRun(home, checkRunId(runId));
  const { record } = stored;
  let script: Omit<PreparedResume, 'args' | 'limits' | 'model' | 'provider'>;
  if (target !== undefined) script = prepareScript(target, options.meta);
  else {
    const meta =
      options.meta !== undefined
        ? validateMeta(readJsonOption('--meta', options.meta))
        : validateMeta(stored.meta);
    script = {
      meta,
      body: stored.script,
      ...(record.scriptPath !== undefined ? { path: record.scriptPath } : {}),
    };
  }
  const model = options.model ?? record.model;
  const provider = options.provider ?? record.provider;
  return {
    ...script,
    args: options.args !== undefined ? parseArgsOption(options.args) : stored.args,
    limits: { ...record.limits, ...flagLimits(options) },
    ...(model !== undefined ? { model } : {}),
    ...(provider !== undefined ? { provider } : {}),
  };
}
