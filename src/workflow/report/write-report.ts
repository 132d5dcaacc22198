/**
 * A kept run's report, start to end: read the run folder, build the model, render the page, and
 * write it whole (a temporary file renamed into place, so a reader never sees half a report).
 * Reading a run that does not exist is a WorkflowError naming it; it never changes the run.
 */

import { replaceWithCompleteFile } from '../../core/complete-file.js';
import { loomVersion } from '../../core/version.js';
import { readRunReportInput } from './report-data.js';
import { renderReportHtml } from './report-html.js';
import { buildRunReport } from './report-model.js';

export interface RenderedReport {
  html: string;
  agents: number;
}

/** The HTML report of kept run `runId` under `home`. */
export function renderRunReport(
  home: string,
  runId: string,
  generatedAt: number = Date.now(),
): RenderedReport {
  const report = buildRunReport(readRunReportInput(home, runId));
  return {
    html: renderReportHtml(report, generatedAt, loomVersion),
    agents: report.agents.length,
  };
}

/** Writes the report of `runId` to `path`; returns its size in bytes and its agent count. */
export function writeRunReport(
  home: string,
  runId: string,
  path: string,
): { bytes: number; agents: number } {
  const { html, agents } = renderRunReport(home, runId);
  const bytes = Buffer.from(html);
  replaceWithCompleteFile(path, bytes);
  return { bytes: bytes.length, agents };
}
