import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { WorkflowEventRecord } from '../../src/workflow/contract.js';
import { WorkflowError } from '../../src/workflow/contract.js';
import { type RunReportInput, readRunReportInput } from '../../src/workflow/report/report-data.js';
import { renderReportHtml } from '../../src/workflow/report/report-html.js';
import { buildRunReport } from '../../src/workflow/report/report-model.js';
import { renderRunReport, writeRunReport } from '../../src/workflow/report/write-report.js';
import type { RunRecord } from '../../src/workflow/run-store.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { engineFixture, settled } from './engine-fixture.js';
import { attribute, externalReferences, parseReport, textOf, within } from './report-html-tree.js';

const HOSTILE_LABEL =
  '</script><script>globalThis.pwned = 1</script><img src=x onerror="alert(1)"> & \'quotes\'';
const HOSTILE_LOG = '</style></script><!-- <b onclick="x()">bold</b>';

/** 200 agents in two phases; every 13th task fails, one agent has a hostile label. */
const twoHundred = `
phase('Survey');
log(${JSON.stringify(HOSTILE_LOG)});
const surveyed = await parallel(Array.from({ length: 100 }, (_, index) => () =>
  agent('task ' + (index + 1), { label: index === 41 ? ${JSON.stringify(HOSTILE_LABEL)} : 'survey ' + (index + 1) })));
phase('Review');
const reviewed = await parallel(Array.from({ length: 100 }, (_, index) => () =>
  agent('task ' + (index + 101), { label: 'review ' + (index + 101) })));
log('done: ' + surveyed.filter(Boolean).length + ' surveyed');
return { surveyed: surveyed.length, reviewed: reviewed.filter(Boolean).length, marker: '</script>' };
`;

const failing = (task: number) => task % 13 === 0;

test('ACCEPTANCE: the report of a 200-agent run with failures has every agent, every failure with its reason, no external reference, and escapes a hostile label', async () => {
  const home = temporaryFolder();
  const fixture = engineFixture({
    service: { home },
    limits: { maxConcurrentAgents: 8 },
    respond: (request) => {
      const task = Number(/^task (\d+)$/.exec(request.prompt)?.[1]);
      if (failing(task)) return { error: `the model refused task ${task}` };
      return { output: `done ${task}`, usage: { input: 100 + task, output: 20 } };
    },
  });
  const run = fixture.start(twoHundred);
  const result = await settled(fixture, run);
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.agentsStarted, 200);
  const failedTasks = Array.from({ length: 200 }, (_, index) => index + 1).filter(failing);
  assert.equal(result.failures.length, failedTasks.length);

  const { html, agents } = renderRunReport(home, run.id);
  assert.equal(agents, 200);
  const tree = parseReport(html);

  assert.deepEqual(externalReferences(html, tree), []);
  const scripts = tree.byTag('script');
  assert.equal(scripts.length, 1, "only the report's own script");
  assert.equal(attribute(scripts[0] as never, 'src'), undefined);
  const policy = tree
    .byTag('meta')
    .find((meta) => attribute(meta, 'http-equiv') === 'Content-Security-Policy');
  assert.match(attribute(policy as never, 'content') ?? '', /default-src 'none'/);

  // Every agent is a table row (id a<seq>) with its label, and a bar in the timeline.
  const labels = new Map(
    fixture.events.of('workflow/agent-start').map((event) => [event.seq, event.label]),
  );
  assert.equal(labels.size, 200);
  const table = tree.byId('agents');
  assert.ok(table, 'the agents table');
  const rows = within(table, 'tr').filter((row) => attribute(row, 'id')?.startsWith('a'));
  assert.equal(rows.length, 200);
  for (const row of rows) {
    const seq = Number(attribute(row, 'id')?.slice(1));
    const cells = within(row, 'td');
    assert.equal(textOf(cells[0] as never), String(seq));
    assert.equal(textOf(cells[1] as never), labels.get(seq), `row ${seq} shows its label`);
    const state = attribute(row, 'data-state');
    const end = fixture.events.of('workflow/agent-end').find((event) => event.seq === seq);
    assert.equal(state, end?.outcome);
  }
  const svg = tree.byId('timeline');
  assert.ok(svg, 'the timeline');
  const bars = within(svg, 'rect');
  assert.deepEqual(
    bars.map((bar) => Number(attribute(bar, 'data-seq'))).sort((a, b) => a - b),
    Array.from({ length: 200 }, (_, index) => index + 1),
  );
  assert.ok(
    bars.every((bar) => within(bar, 'title').length === 1),
    'each bar has hover text',
  );
  const groups = within(svg, 'text')
    .filter((text) => attribute(text, 'class') === 'group')
    .map((text) => textOf(text));
  assert.deepEqual(
    groups.map((group) => group.split(' · ')[0]),
    ['Survey', 'Review'],
  );

  // The failures, with their reasons.
  const failures = tree.byId('failures');
  assert.ok(failures);
  const failureRows = within(failures, 'tbody').flatMap((body) => within(body, 'tr'));
  assert.equal(failureRows.length, failedTasks.length);
  for (const row of failureRows) {
    const cells = within(row, 'td').map((cell) => textOf(cell));
    const seq = Number(cells[0]);
    const end = fixture.events.of('workflow/agent-end').find((event) => event.seq === seq);
    assert.equal(end?.outcome, 'failed');
    assert.equal(cells[4], end?.reason);
    assert.match(cells[4] ?? '', /the model refused task \d+/);
  }

  // The hostile label and log are text, never markup.
  assert.ok(
    tree.elements.some((element) => element.tagName === 'td' && textOf(element) === HOSTILE_LABEL),
  );
  assert.ok(
    tree.elements.some(
      (element) => element.tagName === 'li' && textOf(element).endsWith(HOSTILE_LOG),
    ),
  );
  assert.equal(tree.byTag('b').length, 0);
  assert.equal(tree.byTag('img').length, 0);
  assert.equal(tree.byTag('style').length, 1);
  // The returned value, escaped too.
  const value = tree.byId('value');
  assert.ok(value);
  assert.deepEqual(JSON.parse(textOf(value)), result.value);

  fixture.events.dispose();
});

const record = (overrides: Partial<RunRecord> = {}): RunRecord => ({
  version: 1,
  runId: 'workflow-00000000-0000-0000-0000-000000000001',
  name: 'unit',
  status: 'completed',
  attempt: 2,
  pid: process.pid,
  provider: 'fake',
  limits: {
    maxConcurrentAgents: 4,
    maxTotalAgents: 1000,
    maxItemsPerCall: 4096,
    syncTimeoutMs: 5000,
    cancelGraceMs: 5000,
    maxScriptMemoryMb: 256,
    maxResultBytes: 16 * 1024 * 1024,
    stallMs: 300000,
  },
  budgetTokens: null,
  startedAt: 1000,
  attemptStartedAt: 5000,
  endedAt: 9000,
  agentsStarted: 4,
  journaled: 1,
  tokens: { input: 10, output: 5 },
  ...overrides,
});

const inputOf = (events: WorkflowEventRecord[], overrides: Partial<RunReportInput> = {}) =>
  ({
    folder: '/runs/x',
    record: record(),
    state: 'completed',
    meta: { name: 'unit', description: 'a unit run' },
    script: 'return 1;',
    args: {},
    events,
    skippedEventLines: 0,
    journal: [],
    ...overrides,
  }) as RunReportInput;

const runId = record().runId;
const base = { runId, label: 'x', phase: 'P' };
const usage = { input: 1, output: 1 };

test('the report shows the latest attempt: journaled, cancelled and never-ended agents, nested workflows grouped apart', () => {
  const events: WorkflowEventRecord[] = [
    { type: 'workflow/start', runId, time: 1000, name: 'unit', description: '', phases: [] },
    { type: 'workflow/agent-start', ...base, seq: 1, time: 1100 },
    { type: 'workflow/end', runId, time: 1200, stopReason: 'cancelled', agentsStarted: 1 },
    { type: 'workflow/start', runId, time: 5000, name: 'unit', description: '', phases: [] },
    { type: 'workflow/phase', runId, time: 5000, title: 'P' },
    { type: 'workflow/agent-start', ...base, seq: 1, time: 5001, journaled: true },
    {
      type: 'workflow/agent-end',
      ...base,
      seq: 1,
      time: 5001,
      outcome: 'completed',
      usage: { input: 0, output: 0 },
      journaled: true,
    },
    {
      type: 'workflow/agent-start',
      ...base,
      seq: 2,
      time: 5002,
      label: 'inner',
      workflow: 'child',
    },
    { type: 'workflow/agent-start', ...base, seq: 3, time: 5003 },
    {
      type: 'workflow/agent-end',
      ...base,
      seq: 3,
      time: 6000,
      outcome: 'cancelled',
      reason: 'SIGINT',
      usage,
    },
    { type: 'workflow/log', runId, time: 7000, message: 'hello', workflow: 'child' },
    { type: 'workflow/agent-start', ...base, seq: 4, time: 7500 },
  ];
  const report = buildRunReport(inputOf(events, { state: 'interrupted' }));
  assert.equal(report.attempts.length, 2);
  assert.equal(report.attempt?.number, 2);
  assert.deepEqual(
    report.agents.map((agent) => [agent.seq, agent.state]),
    [
      [1, 'journaled'],
      [2, 'unfinished'],
      [3, 'cancelled'],
      [4, 'unfinished'],
    ],
  );
  assert.equal(report.agents[1]?.endedAt, 7500, 'an agent that never ended runs to the last event');
  assert.deepEqual(
    report.groups.map((group) => [group.workflow ?? null, group.phase, group.agents.length]),
    [
      [null, 'P', 3],
      ['child', 'P', 1],
    ],
  );
  assert.deepEqual(
    report.failures.map((agent) => agent.reason),
    ['SIGINT'],
  );
  assert.deepEqual(
    report.logs.map((line) => [line.kind, line.text, line.workflow ?? null]),
    [
      ['phase', 'P', null],
      ['log', 'hello', 'child'],
    ],
  );
  assert.deepEqual(report.span, { from: 5000, to: 7500 });
  assert.deepEqual(report.counts, {
    completed: 0,
    failed: 0,
    cancelled: 1,
    journaled: 1,
    unfinished: 2,
  });
});

test('agents whose events were lost are listed from the result, without a bar', () => {
  const report = buildRunReport(
    inputOf([], {
      result: {
        runId,
        name: 'unit',
        stopReason: 'completed',
        value: 1,
        agentsStarted: 2,
        failures: [{ seq: 2, label: 'b', outcome: 'failed', reason: 'boom' }],
        usage: { input: 3, output: 4 },
        agents: [
          { seq: 1, label: 'a', outcome: 'completed', tokens: { input: 3, output: 4 } },
          { seq: 2, label: 'b', outcome: 'failed', tokens: { input: 0, output: 0 } },
        ],
      },
    }),
  );
  assert.deepEqual(
    report.agents.map((agent) => [agent.seq, agent.label, agent.state, agent.reason ?? null]),
    [
      [1, 'a', 'completed', null],
      [2, 'b', 'failed', 'boom'],
    ],
  );
  assert.ok(report.agents.every((agent) => agent.startedAt === undefined));
});

test('a large returned value is folded, a small one is not; an unknown or malformed run id is refused naming it', async () => {
  const home = temporaryFolder();
  const fixture = engineFixture({
    service: { home },
    respond: () => ({ output: 'ok' }),
  });
  const small = fixture.start('await agent("one"); return { small: true };');
  await settled(fixture, small);
  const large = fixture.start(
    'await agent("one"); return Array.from({ length: 500 }, (_, index) => ({ index, text: "line " + index }));',
  );
  await settled(fixture, large);
  const valueShown = (id: string) => {
    const tree = parseReport(renderRunReport(home, id).html);
    const value = tree.byId('value');
    assert.ok(value);
    return {
      tree,
      folded: tree.byTag('details').some((details) => within(details, 'pre').includes(value)),
    };
  };
  assert.equal(valueShown(small.id).folded, false);
  const folded = valueShown(large.id);
  assert.equal(folded.folded, true);
  assert.ok(
    folded.tree.byTag('summary').some((summary) => textOf(summary).startsWith('an array of 500')),
  );

  const path = `${home}/report.html`;
  const written = writeRunReport(home, small.id, path);
  assert.equal(written.agents, 1);
  assert.equal(readFileSync(path).length, written.bytes);

  const unknown = 'workflow-00000000-0000-0000-0000-000000000000';
  assert.throws(
    () => readRunReportInput(home, unknown),
    (error: unknown) =>
      error instanceof WorkflowError &&
      error.code === 'INVALID_ARGUMENT' &&
      error.message.includes(`no run ${unknown}`),
  );
  assert.throws(
    () => renderRunReport(home, '../../etc'),
    (error: unknown) => error instanceof WorkflowError && error.message.includes('"../../etc"'),
  );
  fixture.events.dispose();
});

test('a damaged run folder cannot put markup in the page: unknown outcomes, non-numeric seqs and costs are refused or escaped', () => {
  const hostile = '"><script>globalThis.pwned = 1</script><b>';
  const events = [
    { type: 'workflow/start', runId, time: 1000, name: hostile, description: hostile, phases: [] },
    {
      type: 'workflow/agent-start',
      runId,
      seq: 1,
      time: 1001,
      label: hostile,
      phase: hostile,
      model: hostile,
    },
    {
      type: 'workflow/agent-end',
      runId,
      seq: 1,
      time: 1002,
      label: hostile,
      phase: hostile,
      outcome: hostile,
      reason: hostile,
      usage: { input: hostile, output: 1 },
      costUsd: hostile,
    },
    { type: 'workflow/agent-start', runId, seq: hostile, time: 1003, label: 'x', phase: 'P' },
    { type: 'workflow/log', runId, time: 1004, message: hostile, workflow: hostile },
  ] as unknown as WorkflowEventRecord[];
  const input = inputOf(events, {
    meta: { name: hostile, description: hostile },
    script: hostile,
    args: { [hostile]: hostile },
    record: record({ name: hostile, model: hostile, costUsd: hostile as never }),
    result: {
      runId,
      name: hostile,
      stopReason: 'completed',
      value: { [hostile]: hostile },
      agentsStarted: 3,
      failures: [],
      usage: { input: 0, output: 0 },
      agents: [
        { seq: hostile, label: hostile, outcome: hostile, tokens: { input: 0, output: 0 } },
        {
          seq: 2,
          label: hostile,
          outcome: hostile,
          tokens: { input: hostile, output: 0 },
          costUsd: hostile,
        },
      ] as never,
    },
  });
  const report = buildRunReport(input);
  assert.deepEqual(
    report.agents.map((agent) => [agent.seq, agent.state]),
    [
      [1, 'unfinished'],
      [2, 'unfinished'],
    ],
  );
  const html = renderReportHtml(report, 0, 'test');
  const tree = parseReport(html);
  assert.equal(tree.byTag('script').length, 1);
  assert.equal(tree.byTag('b').length, 0);
  assert.deepEqual(externalReferences(html, tree), []);
  assert.ok(!html.includes(hostile), 'the hostile text only appears escaped');
  assert.ok(
    tree.elements.some((element) => element.tagName === 'td' && textOf(element) === hostile),
  );
});

test('a running attempt whose journal holds more completed calls than its written events says so', () => {
  const events: WorkflowEventRecord[] = [
    { type: 'workflow/start', runId, time: 5000, name: 'unit', description: '', phases: [] },
    { type: 'workflow/agent-start', ...base, seq: 1, time: 5001 },
    { type: 'workflow/agent-end', ...base, seq: 1, time: 5002, outcome: 'completed', usage },
  ];
  const line = { key: 'k', n: 1, kind: 'text' as const, value: 'v', usage, label: 'x', time: 5002 };
  const report = buildRunReport(
    inputOf(events, {
      record: record({ status: 'running', attempt: 1 }),
      state: 'interrupted',
      journal: [line, { ...line, n: 2 }, { ...line, n: 3 }],
    }),
  );
  assert.equal(report.fromJournal, false);
  assert.equal(report.unseenJournalCalls, 2);
  assert.match(renderReportHtml(report, 0, 'test'), /holds 2 more completed call\(s\)/);
});
