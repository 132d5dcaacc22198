/**
 * Cache reads and writes of a workflow's agents, as their provider reported them, survive into
 * every record of the run (the agent-end events, the result, the journal, run.json) and the
 * report shows them: two facts and two columns, present only when some agent reported caching.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderRunReport } from '../../src/workflow/report/write-report.js';
import { readJournalText } from '../../src/workflow/run-journal.js';
import { progressOf, type RunRecord, runFolder } from '../../src/workflow/run-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { engineFixture, settled } from './engine-fixture.js';
import { attribute, parseReport, type ReportTree, textOf, within } from './report-html-tree.js';

const twoAgents = `
phase('Ask');
const cached = await agent('cached task', { label: 'cached' });
const plain = await agent('plain task', { label: 'plain' });
return [cached, plain];
`;

const CACHED_USAGE = { input: 5000, output: 100, cachedInput: 4000, cacheWrite: 500 };
const PLAIN_USAGE = { input: 300, output: 20 };

/** A kept run of `twoAgents`; the first agent reports `cachedUsage`. */
async function keptRun(cachedUsage: typeof CACHED_USAGE | typeof PLAIN_USAGE) {
  const home = temporaryFolder();
  const fixture = engineFixture({
    service: { home },
    respond: (request) =>
      request.prompt === 'cached task'
        ? { output: 'a', usage: cachedUsage }
        : { output: 'b', usage: PLAIN_USAGE },
  });
  const run = fixture.start(twoAgents);
  const result = await settled(fixture, run);
  fixture.events.dispose();
  assert.equal(result.stopReason, 'completed');
  return { home, runId: run.id, result, ends: fixture.events.of('workflow/agent-end') };
}

/** The header's facts, title to value. */
function factsOf(tree: ReportTree): Map<string, string> {
  const facts = tree.elements.find((element) => attribute(element, 'class') === 'facts');
  assert.ok(facts, 'the facts');
  const titles = within(facts, 'dt').map((element) => textOf(element));
  const values = within(facts, 'dd').map((element) => textOf(element));
  return new Map(titles.map((title, index) => [title, values[index] ?? '']));
}

/** The agents table: its column titles and, by label, each row's cells. */
function tableOf(tree: ReportTree): { titles: string[]; rows: Map<string, string[]> } {
  const table = tree.byId('agents');
  assert.ok(table, 'the agents table');
  const titles = within(table, 'th').map((cell) => textOf(cell));
  const rows = new Map<string, string[]>();
  for (const row of within(table, 'tr')) {
    if (!attribute(row, 'id')?.startsWith('a')) continue;
    const cells = within(row, 'td').map((cell) => textOf(cell));
    rows.set(cells[1] ?? '', cells);
  }
  return { titles, rows };
}

test('cache reads and writes survive into agent-end, the result, the journal and run.json, and the report shows them', async () => {
  const { home, runId, result, ends } = await keptRun(CACHED_USAGE);
  assert.deepEqual(
    ends.map((end) => [end.label, end.usage]),
    [
      ['cached', CACHED_USAGE],
      ['plain', PLAIN_USAGE],
    ],
  );
  assert.deepEqual(
    result.agents.map((agent) => [agent.label, agent.tokens]),
    [
      ['cached', CACHED_USAGE],
      ['plain', PLAIN_USAGE],
    ],
  );
  const total = { input: 5300, output: 120, cachedInput: 4000, cacheWrite: 500 };
  assert.deepEqual(result.usage, total);

  const folder = runFolder(home, runId);
  const record = JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')) as RunRecord;
  assert.deepEqual(record.tokens, total);
  const journal = readJournalText(readFileSync(join(folder, 'journal.ndjson')));
  assert.deepEqual(journal.problems, []);
  assert.deepEqual(
    journal.records.map((line) => line.usage),
    [CACHED_USAGE, PLAIN_USAGE],
  );
  // A running (or killed) attempt's tokens are read from its journal: the cache counts too.
  const running: RunRecord = { ...record, status: 'running', tokens: { input: 0, output: 0 } };
  assert.deepEqual(progressOf(folder, running).tokens, total);

  const tree = parseReport(renderRunReport(home, runId).html);
  const facts = factsOf(tree);
  assert.equal(facts.get('tokens'), '5.4k (5.3k in / 120 out)');
  assert.equal(facts.get('cache read'), '4.0k of the input');
  assert.equal(facts.get('cache write'), '500 of the input');
  const { titles, rows } = tableOf(tree);
  const column = (title: string) => titles.indexOf(title);
  assert.deepEqual(titles.slice(column('tokens in'), column('tokens out') + 1), [
    'tokens in',
    'cached',
    'cache write',
    'tokens out',
  ]);
  const cells = (label: string) =>
    rows.get(label)?.slice(column('tokens in'), column('tokens out') + 1);
  assert.deepEqual(cells('cached'), ['5.0k', '4.0k', '500', '100']);
  assert.deepEqual(cells('plain'), ['300', '0', '0', '20']);
  const bars = tree.byTag('rect').map((bar) => textOf(within(bar, 'title')[0] as never));
  assert.ok(
    bars.some(
      (title) =>
        title.startsWith('#1 cached') && title.endsWith('· 4.0k cached, 500 written to cache'),
    ),
    bars.join('\n'),
  );
});

test('a run whose agents reported no caching has no cache facts or columns', async () => {
  const { home, runId, result } = await keptRun(PLAIN_USAGE);
  assert.deepEqual(result.usage, { input: 600, output: 40 });
  const tree = parseReport(renderRunReport(home, runId).html);
  const facts = factsOf(tree);
  assert.equal(facts.has('cache read'), false);
  assert.equal(facts.has('cache write'), false);
  const { titles } = tableOf(tree);
  assert.equal(titles.includes('cached'), false);
  assert.equal(titles.includes('cache write'), false);
});
