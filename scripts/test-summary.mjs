// The closing summary of `npm test` (scripts/test.mjs): node's test runner ends each pass with a
// block of `# tests N`, `# suites N`, … `# duration_ms N` lines (TAP). Both passes' blocks are
// taken out of their output as it streams and ONE block is printed last, the counts summed and
// the duration the longer pass's (the passes run side by side), in the same format, so a reader
// of the closing lines (CI's) sees everything that ran. Pure except for the filter's own state.

/** The summary fields, in the order node prints them. */
export const SUMMARY_FIELDS = [
  'tests',
  'suites',
  'pass',
  'fail',
  'cancelled',
  'skipped',
  'todo',
  'duration_ms',
];

const SUMMARY_LINE = new RegExp(`^# (${SUMMARY_FIELDS.join('|')}) (\\d+(?:\\.\\d+)?)$`);

/** The field and value of a top-level summary line (`# pass 12`), else undefined. */
export function parseSummaryLine(line) {
  const match = SUMMARY_LINE.exec(line.replace(/\r$/, ''));
  return match ? { field: match[1], value: Number(match[2]) } : undefined;
}

/** Every field at 0. */
export function emptySummary() {
  return Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, 0]));
}

/** The passes' summaries as one: counts added, `duration_ms` the longest. */
export function combineSummaries(summaries) {
  const total = emptySummary();
  for (const summary of summaries) {
    for (const field of SUMMARY_FIELDS) {
      const value = summary[field] ?? 0;
      total[field] = field === 'duration_ms' ? Math.max(total[field], value) : total[field] + value;
    }
  }
  return total;
}

/** The block node would print for `summary`. */
export function formatSummary(summary) {
  return SUMMARY_FIELDS.map((field) => {
    const value = summary[field] ?? 0;
    return `# ${field} ${field === 'duration_ms' ? Number(value.toFixed(6)) : value}\n`;
  }).join('');
}

/**
 * A filter over one pass's output: `write(chunk)` returns the text to show, without the summary
 * lines (a line split across chunks is held until it ends); `end()` returns what was held;
 * `summary` holds the values taken out.
 */
export function summaryFilter() {
  const summary = emptySummary();
  let partial = '';
  const keep = (line) => {
    const parsed = parseSummaryLine(line);
    if (!parsed) return true;
    summary[parsed.field] += parsed.value;
    return false;
  };
  return {
    summary,
    write(chunk) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      return lines
        .filter(keep)
        .map((line) => `${line}\n`)
        .join('');
    },
    end() {
      const rest = partial;
      partial = '';
      return rest !== '' && keep(rest) ? rest : '';
    },
  };
}
