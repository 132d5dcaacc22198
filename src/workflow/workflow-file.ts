/**
 * Reads a workflow file (a nested `workflow()` call's target): its Claude Code header is the meta
 * (read statically, never evaluated) and the rest the body, checked as `start` checks a body.
 * Every error is a `WorkflowError` naming the file. It never runs any of the file, and never
 * blocks on a special file (a FIFO would hold the host's loop until a writer came).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { errorMessage } from '../base/errors.js';
import { type AgentCallCheckOptions, checkAgentCalls } from './agent-call-check.js';
import { type LoadedWorkflow, WorkflowError } from './contract.js';
import { validateMeta } from './meta.js';
import { splitMetaHeader } from './meta-header.js';
import { checkScriptBody } from './script-parse.js';

/**
 * `path` is absolute (a `resolveWorkflow` answer); `calls` checks its literal `agent()` options.
 * Throws INVALID_ARGUMENT, META_INVALID, SCRIPT_PARSE or UNSUPPORTED_OPTION.
 */
export function readWorkflowFile(path: string, calls: AgentCallCheckOptions = {}): LoadedWorkflow {
  let source: string;
  try {
    source = readRegularFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : errorMessage(error);
    throw new WorkflowError('INVALID_ARGUMENT', `cannot read the workflow file ${path}: ${reason}`);
  }
  const split = splitMetaHeader(source, path);
  if (!split) {
    throw new WorkflowError(
      'META_INVALID',
      `${path} has no meta: start the file with a header \`export const meta = { name: …, description: … };\``,
    );
  }
  const meta = naming(path, () => validateMeta(split.meta));
  naming(path, () => checkScriptBody(split.body));
  naming(path, () => checkAgentCalls(split.body, calls));
  return { name: meta.name, meta, body: split.body, path };
}

/** Opened without blocking, then checked on the handle: only a regular file is read. */
function readRegularFile(path: string): string {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(descriptor);
    if (stats.isDirectory()) throw new Error('it is a folder');
    if (!stats.isFile()) throw new Error('it is not a regular file (a FIFO, socket or device)');
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

function naming<Result>(path: string, check: () => Result): Result {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof WorkflowError)) throw error;
    throw new WorkflowError(error.code, `${path}: ${error.message}`, { cause: error });
  }
}
