/**
 * `loom workflow report RUN_ID [-o FILE]`: writes a kept run's report, one self-contained HTML
 * file (default `./RUN_ID.html`; `-o -` writes it on stdout), and prints the path it wrote.
 * Exit 0 written, 2 for a malformed or unknown run id (named), 1 when the file cannot be written.
 * It only reads the run.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errorMessage, UserError } from '../base/errors.js';
import { loomHome } from '../core/home.js';
import { WorkflowError } from '../workflow/contract.js';
import { renderRunReport, writeRunReport } from '../workflow/report/write-report.js';
import { describeStartError } from './workflow-options.js';

export interface WorkflowReportOptions {
  output?: string;
}

export function workflowReportCommand(runId: string, options: WorkflowReportOptions): number {
  const home = loomHome();
  try {
    if (options.output === '-') {
      process.stdout.write(renderRunReport(home, runId).html);
      return 0;
    }
    const path = resolve(options.output ?? `${runId}.html`);
    writeRunReport(home, runId, path);
    process.stdout.write(`${path}\n`);
    return 0;
  } catch (error) {
    if (error instanceof WorkflowError) {
      process.stderr.write(`loom: ${describeStartError(error)}\n`);
      return 2;
    }
    process.stderr.write(`loom: cannot write the report of run ${runId}: ${errorMessage(error)}\n`);
    return 1;
  }
}

/**
 * `loom workflow run --report FILE`, checked before the run starts: FILE's folder must exist and
 * FILE must not be a folder. Returns the absolute path; a bad one is a UserError naming it.
 */
export function checkReportPath(path: string): string {
  const absolute = resolve(path);
  const folder = dirname(absolute);
  let problem: string | undefined;
  try {
    if (!statSync(folder).isDirectory()) problem = `${folder} is not a folder`;
    else if (existsSync(absolute) && statSync(absolute).isDirectory()) {
      problem = `${absolute} is a folder`;
    }
  } catch (error) {
    problem = errorMessage(error);
  }
  if (problem !== undefined) {
    throw new UserError('INVALID_ARGUMENT', `--report: cannot write ${path}: ${problem}`);
  }
  return absolute;
}

/** Writes the ended run's report for `--report`; returns a line for stderr when it could not. */
export function writeReportOfRun(runId: string, path: string): string | undefined {
  try {
    writeRunReport(loomHome(), runId, path);
    return undefined;
  } catch (error) {
    return `--report: cannot write the report of run ${runId} to ${path}: ${errorMessage(error)}`;
  }
}
