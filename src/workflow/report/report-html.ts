/**
 * The run report as one self-contained HTML page: header facts, the timeline (inline SVG), the
 * failures with reasons, every agent in one table, the logs, the returned value (folded when
 * large), the run's error, and the script. Inline CSS and a constant inline script only; a
 * Content-Security-Policy forbids every fetch. Every text from the run goes through `escapeHtml`.
 */
import { formatCost } from '../../llm/prices.js';
import { describeCompleted } from '../run-outcome.js';
import {
  escapeHtml,
  formatBytes,
  formatDuration,
  formatTime,
  formatTokens,
  formatUsage,
} from './html-text.js';
import { REPORT_POLICY, REPORT_SCRIPT, REPORT_STYLE } from './report-assets.js';
import { AGENT_STATES, type ReportAgent, type RunReport } from './report-model.js';
import { groupTitle, timelineSvg } from './timeline-svg.js';

/** Characters of the returned value shown; the rest is in `result.json`. */
export const MAX_VALUE_CHARACTERS = 1_000_000;
/** A value longer than this (or than `FOLD_VALUE_LINES`) is folded in a `<details>`. */
const FOLD_VALUE_CHARACTERS = 2000;
const FOLD_VALUE_LINES = 30;
/** Log lines shown; the rest are in `events.ndjson`. */
export const MAX_LOG_LINES = 5000;
const MAX_LOG_CHARACTERS = 4000;
const FOLD_LOG_LINES = 200;

const text = escapeHtml;

function fact(title: string, value: string): string {
  return `<div><dt>${text(title)}</dt><dd>${text(value)}</dd></div>`;
}

/** A count from `run.json`, which is read, not trusted: anything else shows as 0. */
const whole = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function detail(title: string, value: string): string {
  return `<dt>${text(title)}</dt><dd>${text(value)}</dd>`;
}

/**
 * The badge: the run's state, except that a completed run with failed agents says so in amber
 * (from its result, else the agents' counts), never a green "completed".
 */
function badge(report: RunReport): { status: string; className: string } {
  const { record, state, result } = report.input;
  const code = report.error?.code ?? record.code;
  if (state === 'error' && code !== undefined) return { status: `error ${code}`, className: state };
  if (state !== 'completed') return { status: state, className: state };
  const failed = Array.isArray(result?.failures)
    ? result.failures.length
    : report.counts.failed + report.counts.cancelled;
  return { status: describeCompleted(failed), className: failed > 0 ? 'failed-agents' : state };
}

/** The run's slots (`maxConcurrentAgents`), from `run.json`, which is read, not trusted. */
function slots(report: RunReport): string {
  const value = (report.input.record.limits as { maxConcurrentAgents?: unknown } | undefined)
    ?.maxConcurrentAgents;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : 'unknown';
}

function header(report: RunReport, generatedAt: number): string {
  const { record, meta, state } = report.input;
  const { status, className } = badge(report);
  const ended = record.endedAt !== undefined && state !== 'running' && state !== 'interrupted';
  const tokens = { input: whole(record.tokens?.input), output: whole(record.tokens?.output) };
  const cacheRead = whole(record.tokens?.cachedInput);
  const cacheWrite = whole(record.tokens?.cacheWrite);
  const facts = [
    fact('status', status),
    fact('attempts', String(record.attempt)),
    fact(
      'agents',
      record.journaled > 0
        ? `${record.agentsStarted} (${record.journaled} journaled)`
        : String(record.agentsStarted),
    ),
    fact('failed / cancelled', `${report.counts.failed} / ${report.counts.cancelled}`),
    fact('slots', slots(report)),
    fact('tokens', `${formatTokens(tokens.input + tokens.output)} (${formatUsage(tokens)})`),
    // Only for a provider that reported caching; both are counted in the input above.
    ...(cacheRead > 0 ? [fact('cache read', `${formatTokens(cacheRead)} of the input`)] : []),
    ...(cacheWrite > 0 ? [fact('cache write', `${formatTokens(cacheWrite)} of the input`)] : []),
    fact('cost', typeof record.costUsd === 'number' ? formatCost(record.costUsd) : 'unknown'),
    fact('started', formatTime(record.startedAt)),
    fact('ended', ended ? formatTime(record.endedAt ?? 0) : state),
    ...(ended && record.attempt === 1
      ? [fact('took', formatDuration((record.endedAt ?? 0) - record.startedAt))]
      : []),
    ...(typeof record.budgetTokens === 'number'
      ? [fact('token budget', formatTokens(record.budgetTokens))]
      : []),
  ];
  const where = [
    detail('run', record.runId),
    ...(record.model !== undefined ? [detail('model', record.model)] : []),
    ...(record.provider !== undefined ? [detail('provider', record.provider)] : []),
    ...(record.scriptPath !== undefined ? [detail('script', record.scriptPath)] : []),
    detail('folder', report.input.folder),
    detail('report made', formatTime(generatedAt)),
  ];
  const attemptNote =
    report.attempts.length > 1 || record.attempt > 1
      ? `<p class="note">The timeline shows attempt ${report.attempt?.number ?? 0} of the ${report.attempts.length} in the events (${formatUsage(report.attemptTokens)} in it); the tokens above are every attempt's.</p>`
      : '';
  const skipped =
    report.input.skippedEventLines > 0
      ? `<p class="note">${report.input.skippedEventLines} line(s) of events.ndjson were not events (a write cut short) and were skipped.</p>`
      : '';
  return `<header><h1>${text(meta.name || record.name)}<span class="status ${text(className)}">${text(status)}</span></h1>
<p class="description">${text(meta.description ?? '')}</p>
<dl class="facts">${facts.join('')}</dl>${attemptNote}${skipped}
<dl class="where">${where.join('')}</dl></header>`;
}

function legend(report: RunReport): string {
  const items = AGENT_STATES.filter(
    (state) => report.counts[state] > 0 || state !== 'unfinished',
  ).map((state) => `<span><i class="s-${state}"></i>${state} ${report.counts[state]}</span>`);
  return `<div class="legend">${items.join('')}</div>`;
}

function timeline(report: RunReport): string {
  const svg = timelineSvg(report);
  const untimed = report.agents.filter((agent) => agent.startedAt === undefined).length;
  const untimedNote = report.fromJournal
    ? `<p class="note">Attempt ${report.input.record.attempt} wrote no events before it ${report.input.state === 'running' ? 'reached this point (they are written in 64 KB chunks)' : 'was killed'}: its ${report.agents.length} completed call(s) come from its journal, numbered in the order they completed, without times or phases. Agents that were still running are not known.</p>`
    : untimed > 0
      ? `<p class="note">${untimed} agent(s) have no kept events, so no bar; the table lists them.</p>`
      : '';
  const unseenNote =
    report.unseenJournalCalls > 0
      ? `<p class="note">The journal holds ${report.unseenJournalCalls} more completed call(s) of this attempt than its written events show: events after the last 64 KB chunk ${report.input.state === 'running' ? 'are not written yet' : 'were lost when the process was killed'}.</p>`
      : '';
  const body =
    svg === ''
      ? '<p class="note">No agent has a time to draw.</p>'
      : `${legend(report)}${svg}<p class="note">One bar per agent, grouped by phase; hover a bar for its details, click it to find its row. ${text(formatDuration(report.span.to - report.span.from))} from the attempt's start to its end.</p>`;
  return `<section><h2>Timeline</h2>${body}${untimedNote}${unseenNote}</section>`;
}

function stateCell(agent: ReportAgent): string {
  return `<td class="state"><span class="s-${agent.state}">${agent.state}</span></td>`;
}

function failures(report: RunReport): string {
  if (report.failures.length === 0) {
    return '<section><h2>Failures</h2><p class="note">No agent failed or was cancelled.</p></section>';
  }
  const rows = report.failures.map(
    (agent) =>
      `<tr><td class="n">${agent.seq}</td><td class="label">${text(agent.label)}</td><td>${text(groupTitle(agent))}</td>${stateCell(agent)}<td class="label">${text(agent.reason ?? '')}</td></tr>`,
  );
  return `<section id="failures" class="later"><h2>Failures (${report.failures.length})</h2><div class="scroll"><table><thead><tr><th class="n">#</th><th>label</th><th>phase</th><th>state</th><th>reason</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

/** A sortable count cell. */
function countCell(count: number): string {
  return `<td class="n" data-v="${count}">${formatTokens(count)}</td>`;
}

function agentsTable(report: RunReport): string {
  const { from } = report.span;
  const withCost = report.agents.some((agent) => agent.costUsd !== undefined);
  // Cache columns only when some agent's provider reported caching.
  const withCached = report.agents.some((agent) => (agent.usage.cachedInput ?? 0) > 0);
  const withCacheWrite = report.agents.some((agent) => (agent.usage.cacheWrite ?? 0) > 0);
  const models = new Set(report.agents.map((agent) => agent.model ?? ''));
  const withModel =
    models.size > 1 || (models.size === 1 && !models.has(report.input.record.model ?? ''));
  const withBranch = report.agents.some((agent) => agent.branch !== undefined);
  const withEffort = report.agents.some((agent) => agent.effort !== undefined);
  const rows = report.agents.map((agent) => {
    const started = agent.startedAt !== undefined ? agent.startedAt - from : undefined;
    const took =
      agent.startedAt !== undefined && agent.endedAt !== undefined
        ? agent.endedAt - agent.startedAt
        : undefined;
    const cells = [
      `<td class="n">${agent.seq}</td>`,
      `<td class="label">${text(agent.label)}</td>`,
      `<td>${text(groupTitle(agent))}</td>`,
      stateCell(agent),
      started !== undefined
        ? `<td class="n" data-v="${started}">+${text(formatDuration(started))}</td>`
        : '<td class="n" data-v="-1">–</td>',
      took !== undefined
        ? `<td class="n" data-v="${took}">${text(formatDuration(took))}</td>`
        : '<td class="n" data-v="-1">–</td>',
      `<td class="n" data-v="${agent.usage.input}">${formatTokens(agent.usage.input)}</td>`,
      ...(withCached ? [countCell(agent.usage.cachedInput ?? 0)] : []),
      ...(withCacheWrite ? [countCell(agent.usage.cacheWrite ?? 0)] : []),
      `<td class="n" data-v="${agent.usage.output}">${formatTokens(agent.usage.output)}</td>`,
      ...(withCost
        ? [
            agent.costUsd !== undefined
              ? `<td class="n" data-v="${agent.costUsd}">${formatCost(agent.costUsd)}</td>`
              : '<td class="n" data-v="-1">–</td>',
          ]
        : []),
      ...(withModel ? [`<td>${text(agent.model ?? '')}</td>`] : []),
      ...(withEffort ? [`<td>${text(agent.effort ?? '')}</td>`] : []),
      ...(withBranch ? [`<td class="branch">${text(agent.branch ?? '')}</td>`] : []),
    ];
    return `<tr id="a${agent.seq}" data-state="${agent.state}">${cells.join('')}</tr>`;
  });
  const titles = [
    '<th class="n">#</th>',
    '<th>label</th>',
    '<th>phase</th>',
    '<th>state</th>',
    '<th class="n">start</th>',
    '<th class="n">time</th>',
    '<th class="n">tokens in</th>',
    ...(withCached ? ['<th class="n">cached</th>'] : []),
    ...(withCacheWrite ? ['<th class="n">cache write</th>'] : []),
    '<th class="n">tokens out</th>',
    ...(withCost ? ['<th class="n">cost</th>'] : []),
    ...(withModel ? ['<th>model</th>'] : []),
    ...(withEffort ? ['<th>effort</th>'] : []),
    ...(withBranch ? ['<th>branch</th>'] : []),
  ];
  const options = AGENT_STATES.map((state) => `<option value="${state}">${state}</option>`);
  return `<section class="later"><h2>Agents (${report.agents.length})</h2>
<div class="tools"><input id="filter" type="search" placeholder="filter by label, phase…" aria-label="filter the agents"><select id="state" aria-label="state"><option value="">every state</option>${options.join('')}</select><span class="count" id="count">${report.agents.length} agents</span></div>
<div class="scroll"><table id="agents"><thead><tr>${titles.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
<p class="note">Click a column title to sort; start is from the attempt's start.</p></section>`;
}

function logs(report: RunReport): string {
  if (report.logs.length === 0) {
    return '<section><h2>Logs</h2><p class="note">The script logged nothing.</p></section>';
  }
  const { from } = report.span;
  const shown = report.logs.slice(0, MAX_LOG_LINES).map((line) => {
    const message =
      line.text.length > MAX_LOG_CHARACTERS
        ? `${line.text.slice(0, MAX_LOG_CHARACTERS)}… (${line.text.length} characters)`
        : line.text;
    const prefix = line.workflow !== undefined ? `[${line.workflow}] ` : '';
    const kind = line.kind === 'phase' ? 'phase: ' : '';
    return `<li class="${line.kind}"><time>+${text(formatDuration(line.time - from))}</time>${text(prefix + kind + message)}</li>`;
  });
  const more =
    report.logs.length > MAX_LOG_LINES
      ? `<p class="note">${report.logs.length - MAX_LOG_LINES} more lines are in events.ndjson.</p>`
      : '';
  const list = `<ol class="logs">${shown.join('')}</ol>${more}`;
  const body =
    report.logs.length > FOLD_LOG_LINES
      ? `<details><summary>${report.logs.length} lines</summary>${list}</details>`
      : list;
  return `<section class="later"><h2>Logs and phases (${report.logs.length})</h2>${body}</section>`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object of ${Object.keys(value).length} keys`;
  return `a ${typeof value}`;
}

function folded(summary: string, content: string, fold: boolean): string {
  return fold ? `<details><summary>${text(summary)}</summary>${content}</details>` : content;
}

function outcome(report: RunReport): string {
  const { result } = report.input;
  const parts: string[] = [];
  if (report.error) {
    parts.push(
      `<h2>Error ${text(report.error.code)}</h2><pre class="error">${text(report.error.message)}</pre>`,
    );
  }
  if (result?.stopReason === 'completed') {
    const json = JSON.stringify(result.value ?? null, null, 2);
    const cut = json.length > MAX_VALUE_CHARACTERS;
    const shown = cut ? json.slice(0, MAX_VALUE_CHARACTERS) : json;
    const note = cut
      ? `<p class="note">The first ${formatBytes(MAX_VALUE_CHARACTERS)} of ${formatBytes(json.length)}; the whole value is in result.json.</p>`
      : '';
    const lines = shown.split('\n').length;
    const fold = json.length > FOLD_VALUE_CHARACTERS || lines > FOLD_VALUE_LINES;
    const summary = `${describeValue(result.value)}, ${formatBytes(json.length)} of JSON`;
    parts.push(
      `<h2>Returned value</h2>${folded(summary, `<pre id="value">${text(shown)}</pre>${note}`, fold)}`,
    );
  } else if (!report.error) {
    parts.push(
      `<h2>Returned value</h2><p class="note">None: the run ${report.input.state === 'running' ? 'is still running' : `did not complete (${text(report.input.state)})`}.</p>`,
    );
  } else {
    parts.push('<h2>Returned value</h2><p class="note">None: the run did not complete.</p>');
  }
  return `<section class="later">${parts.join('')}</section>`;
}

function attempts(report: RunReport): string {
  if (report.attempts.length <= 1) return '';
  const rows = report.attempts.map(
    (attempt) =>
      `<tr><td class="n">${attempt.number}</td><td>${text(formatTime(attempt.startedAt))}</td><td>${attempt.endedAt !== undefined ? text(formatDuration(attempt.endedAt - attempt.startedAt)) : 'no end recorded'}</td><td>${text(attempt.stopReason ?? '–')}${attempt.code !== undefined ? ` ${text(attempt.code)}` : ''}</td><td class="n">${attempt.agents}</td><td class="n">${attempt.journaled}</td></tr>`,
  );
  return `<section><h2>Attempts</h2><table><thead><tr><th class="n">#</th><th>started</th><th>took</th><th>ended</th><th class="n">agents</th><th class="n">journaled</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function inputs(report: RunReport): string {
  const { script, args } = report.input;
  const argsJson = JSON.stringify(args, null, 2);
  return `<section><h2>Script and arguments</h2>${folded(`script.js, ${script.split('\n').length} lines`, `<pre>${text(script)}</pre>`, true)}${folded(`args, ${formatBytes(argsJson.length)} of JSON`, `<pre>${text(argsJson)}</pre>`, true)}</section>`;
}

/** The whole page. `generatedAt` is shown in the header. */
export function renderReportHtml(report: RunReport, generatedAt: number, version: string): string {
  const title = `${report.input.record.name} · ${report.input.state} · loom run report`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${text(REPORT_POLICY)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="loom ${text(version)}">
<title>${text(title)}</title>
<style>${REPORT_STYLE}</style></head>
<body><main>
${header(report, generatedAt)}
${timeline(report)}
${failures(report)}
${agentsTable(report)}
${logs(report)}
${outcome(report)}
${attempts(report)}
${inputs(report)}
<footer>loom ${text(version)} · workflow run report · self-contained: no network needed</footer>
</main>
<script>${REPORT_SCRIPT}</script>
</body></html>
`;
}
