/**
 * `loom workflow list`: the saved workflows of this project (`.loom/workflows/`) and of the user
 * (`$LOOM_HOME/workflows/`) with their description and where each lives; a project workflow that
 * hides a personal one is marked, and one whose header is bad is listed with its problem. Reads
 * only; it never runs a script.
 */
import { loomHome } from '../core/home.js';
import { listSavedWorkflows, type SavedWorkflow } from '../workflow/saved-workflows.js';
import { plainTable } from './plain-table.js';
import { describeStartError } from './workflow-options.js';

const COLUMNS = ['NAME', 'SCOPE', 'DESCRIPTION', 'PATH'] as const;

export interface WorkflowListOptions {
  json?: boolean;
}

/** The `--json` line of one saved workflow. */
export function savedWorkflowJson(saved: SavedWorkflow): Record<string, unknown> {
  const where = {
    name: saved.name,
    scope: saved.scope,
    path: saved.path,
    ...(saved.shadows !== undefined ? { shadows: saved.shadows } : {}),
  };
  if (saved.kind === 'invalid') return { ...where, problem: saved.problem };
  return {
    ...where,
    title: saved.meta.name,
    description: saved.meta.description,
    ...(saved.meta.whenToUse !== undefined ? { whenToUse: saved.meta.whenToUse } : {}),
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** A problem on one line, without the path its column already shows: `a (2 problems): b; c`. */
function problemCell(saved: SavedWorkflow & { kind: 'invalid' }): string {
  const text = saved.problem.startsWith(`${saved.path}: `)
    ? saved.problem.slice(saved.path.length + 2)
    : saved.problem;
  const [head = '', ...rest] = text.split('\n');
  if (!head.endsWith(':')) return head;
  const items = rest.filter((line) => /^\s/.test(line)).map((line) => line.trim());
  return `${head} ${items.join('; ')}`;
}

export function formatSavedWorkflows(saved: readonly SavedWorkflow[]): string {
  const rows = saved.map((workflow) => [
    workflow.name,
    workflow.shadows === undefined ? workflow.scope : `${workflow.scope} (hides personal)`,
    workflow.kind === 'valid'
      ? firstLine(workflow.meta.description)
      : `error: ${problemCell(workflow)}`,
    workflow.path,
  ]);
  return plainTable(COLUMNS, rows);
}

/** Exit 0, or 2 when a folder cannot be read. */
export function workflowListCommand(options: WorkflowListOptions): number {
  let saved: SavedWorkflow[];
  try {
    saved = listSavedWorkflows({ cwd: process.cwd(), home: loomHome() });
  } catch (error) {
    process.stderr.write(`loom: ${describeStartError(error)}\n`);
    return 2;
  }
  if (options.json) {
    for (const workflow of saved)
      process.stdout.write(`${JSON.stringify(savedWorkflowJson(workflow))}\n`);
    return 0;
  }
  if (saved.length === 0) {
    process.stderr.write(
      'no saved workflows: add .loom/workflows/NAME.js (this project) or $LOOM_HOME/workflows/NAME.js (yours)\n',
    );
    return 0;
  }
  process.stdout.write(formatSavedWorkflows(saved));
  return 0;
}
