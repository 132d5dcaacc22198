// Types of scripts/test-summary.mjs, for its test.
export type SummaryField =
  | 'tests'
  | 'suites'
  | 'pass'
  | 'fail'
  | 'cancelled'
  | 'skipped'
  | 'todo'
  | 'duration_ms';
export type Summary = Record<SummaryField, number>;
export const SUMMARY_FIELDS: readonly SummaryField[];
export function parseSummaryLine(line: string): { field: SummaryField; value: number } | undefined;
export function emptySummary(): Summary;
export function combineSummaries(summaries: readonly Partial<Summary>[]): Summary;
export function formatSummary(summary: Partial<Summary>): string;
export function summaryFilter(): {
  summary: Summary;
  write(chunk: string): string;
  end(): string;
};
