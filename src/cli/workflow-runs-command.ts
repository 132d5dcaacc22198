/**
 * `loom workflow runs [--json]`: the runs kept under `$LOOM_HOME/runs`, newest first, with their
 * status (`interrupted` when a run says running and its process is gone), agents and tokens.
 * `--json` prints one object a line. It only reads; it never repairs or deletes a run.
 */
import { loomHome } from '../core/home.js';
import { formatTokens } from '../workflow/run-events.js';
import { listRuns, type RunSummary } from '../workflow/run-store.js';
import { plainTable, tableTime } from './plain-table.js';

export interface WorkflowRunsOptions {
  json?: boolean;
}

const TITLES = ['ID', 'NAME', 'STATUS', 'AGENTS', 'TOKENS', 'STARTED'];

function jsonLine(run: RunSummary): string {
  return JSON.stringify({
    runId: run.runId,
    name: run.name,
    status: run.state,
    ...(run.code !== undefined ? { code: run.code } : {}),
    attempt: run.attempt,
    agents: run.agentsStarted,
    journaled: run.journaled,
    tokens: run.tokens,
    startedAt: run.startedAt,
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
  });
}

export function workflowRunsCommand(options: WorkflowRunsOptions): number {
  const runs = listRuns(loomHome());
  if (options.json) {
    for (const run of runs) process.stdout.write(`${jsonLine(run)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    process.stderr.write('no workflow runs yet\n');
    return 0;
  }
  const rows = runs.map((run) => [
    run.runId,
    run.name,
    run.code !== undefined && run.state === 'error' ? `error ${run.code}` : run.state,
    run.journaled > 0
      ? `${run.agentsStarted} (${run.journaled} journaled)`
      : String(run.agentsStarted),
    formatTokens(run.tokens.input + run.tokens.output),
    tableTime(run.startedAt),
  ]);
  process.stdout.write(plainTable(TITLES, rows));
  return 0;
}
