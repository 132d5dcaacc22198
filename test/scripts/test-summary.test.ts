import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  combineSummaries,
  formatSummary,
  parseSummaryLine,
  summaryFilter,
} from '../../scripts/test-summary.mjs';

const pass = (tests: number, fail: number, duration: number) =>
  [
    `# tests ${tests}`,
    '# suites 0',
    `# pass ${tests - fail}`,
    `# fail ${fail}`,
    '# cancelled 0',
    '# skipped 1',
    '# todo 0',
    `# duration_ms ${duration}`,
    '',
  ].join('\n');

test('the summary lines of both passes are taken out and summed into one block', () => {
  const first = summaryFilter();
  const second = summaryFilter();
  const firstOutput = `TAP version 13\nok 1 - a\n  # nested comment\n${pass(1160, 2, 201.5)}`;
  // A line split across chunks is held until its end comes.
  const shown = [firstOutput.slice(0, 40), firstOutput.slice(40, 90), firstOutput.slice(90)]
    .map((chunk) => first.write(chunk))
    .join('');
  assert.equal(shown + first.end(), 'TAP version 13\nok 1 - a\n  # nested comment\n');
  assert.equal(second.write(`ok 1 - b\n${pass(62, 0, 90.25)}`), 'ok 1 - b\n');
  assert.equal(
    formatSummary(combineSummaries([first.summary, second.summary])),
    [
      '# tests 1222',
      '# suites 0',
      '# pass 1220',
      '# fail 2',
      '# cancelled 0',
      '# skipped 2',
      '# todo 0',
      '# duration_ms 201.5',
      '',
    ].join('\n'),
  );
});

test('only top-level summary lines count: a test named "# pass 3" or an indented one stays', () => {
  assert.deepEqual(parseSummaryLine('# pass 3'), { field: 'pass', value: 3 });
  assert.deepEqual(parseSummaryLine('# duration_ms 12.5\r'), { field: 'duration_ms', value: 12.5 });
  assert.equal(parseSummaryLine('    # pass 3'), undefined);
  assert.equal(parseSummaryLine('ok 4 - # pass 3'), undefined);
  assert.equal(parseSummaryLine('# passes 3'), undefined);
  const filter = summaryFilter();
  assert.equal(filter.write('# tests 5'), '');
  assert.equal(filter.end(), '');
  assert.equal(filter.summary.tests, 5);
});
