/**
 * The report's timeline: one inline SVG, one bar per agent, grouped by (nested workflow, phase),
 * coloured by state through CSS classes. Within a group, bars share lanes when they do not
 * overlap, so a group is as tall as its peak concurrency, not its agent count: 2000 agents stay
 * a few hundred pixels. Each bar carries its seq and a `<title>` (the hover text). Every text
 * from the run is escaped.
 */
import { cacheText, escapeHtml, formatDuration, formatUsage } from './html-text.js';
import type { ReportAgent, ReportGroup, RunReport } from './report-model.js';

/** The drawing's width in SVG units; the page scales it to the column's width. */
export const TIMELINE_WIDTH = 1160;
const AXIS_HEIGHT = 24;
const HEADING_HEIGHT = 20;
const GROUP_GAP = 8;
/** The narrowest bar, in SVG units, so an instant (journaled) agent is still visible. */
const MINIMUM_BAR = 2;

interface PlacedAgent {
  agent: ReportAgent;
  lane: number;
}

/** Greedy lanes: each bar goes to the first lane free at its start (by its drawn extent). */
function placeInLanes(
  agents: readonly ReportAgent[],
  minimumSpan: number,
): { placed: PlacedAgent[]; lanes: number } {
  const timed = agents
    .filter((agent) => agent.startedAt !== undefined)
    .sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || a.seq - b.seq);
  const laneEnds: number[] = [];
  const placed: PlacedAgent[] = [];
  for (const agent of timed) {
    const start = agent.startedAt ?? 0;
    const end = Math.max(agent.endedAt ?? start, start + minimumSpan);
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start);
    if (lane === -1) {
      lane = laneEnds.length;
      laneEnds.push(end);
    } else laneEnds[lane] = end;
    placed.push({ agent, lane });
  }
  return { placed, lanes: laneEnds.length };
}

/** A round tick step (1, 2 or 5 times a power of ten milliseconds) giving about 8 ticks. */
function tickStep(span: number): number {
  const rough = Math.max(span / 8, 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const factor of [1, 2, 5, 10]) if (power * factor >= rough) return power * factor;
  return power * 10;
}

export function groupTitle(group: Pick<ReportGroup, 'phase' | 'workflow'>): string {
  const phase = group.phase === '' ? '(no phase)' : group.phase;
  return group.workflow !== undefined ? `${group.workflow} › ${phase}` : phase;
}

function barTitle(agent: ReportAgent): string {
  const duration =
    agent.startedAt !== undefined && agent.endedAt !== undefined
      ? ` · ${formatDuration(agent.endedAt - agent.startedAt)}`
      : '';
  const reason = agent.reason !== undefined ? `: ${agent.reason}` : '';
  const cache = cacheText(agent.usage);
  return `#${agent.seq} ${agent.label} · ${agent.state}${reason}${duration} · ${formatUsage(agent.usage)}${cache !== '' ? ` · ${cache}` : ''}`;
}

const number = (value: number) => String(Math.round(value * 10) / 10);

/** The SVG markup, or '' when no agent has a time to draw. */
export function timelineSvg(report: RunReport): string {
  const { from, to } = report.span;
  const span = Math.max(to - from, 1);
  const scale = TIMELINE_WIDTH / span;
  const minimumSpan = MINIMUM_BAR / scale;
  const layouts = report.groups.map((group) => ({
    group,
    ...placeInLanes(group.agents, minimumSpan),
  }));
  const totalLanes = layouts.reduce((sum, layout) => sum + layout.lanes, 0);
  if (totalLanes === 0) return '';
  const laneHeight = totalLanes <= 60 ? 10 : totalLanes <= 150 ? 6 : 3;
  const laneGap = laneHeight >= 6 ? 2 : 1;
  const parts: string[] = [];
  let y = AXIS_HEIGHT;
  for (const { group, placed, lanes } of layouts) {
    if (lanes === 0) continue;
    const failed = group.agents.filter((agent) => agent.state === 'failed').length;
    const heading = `${groupTitle(group)} · ${group.agents.length} agent${group.agents.length === 1 ? '' : 's'}${failed > 0 ? ` · ${failed} failed` : ''}`;
    parts.push(
      `<text class="group" x="0" y="${y + 14}">${escapeHtml(heading)}</text>`,
      `<line class="rule" x1="0" x2="${TIMELINE_WIDTH}" y1="${y + HEADING_HEIGHT - 1}" y2="${y + HEADING_HEIGHT - 1}"/>`,
    );
    const top = y + HEADING_HEIGHT;
    for (const { agent, lane } of placed) {
      const start = agent.startedAt ?? from;
      const x = (start - from) * scale;
      const width = Math.max(((agent.endedAt ?? start) - start) * scale, MINIMUM_BAR);
      parts.push(
        `<rect class="s-${agent.state}" x="${number(x)}" y="${top + lane * (laneHeight + laneGap)}" width="${number(width)}" height="${laneHeight}" data-seq="${agent.seq}"><title>${escapeHtml(barTitle(agent))}</title></rect>`,
      );
    }
    y = top + lanes * (laneHeight + laneGap) + GROUP_GAP;
  }
  const height = y;
  const ticks: string[] = [];
  const step = tickStep(span);
  for (let at = 0; at <= span; at += step) {
    const x = number(at * scale);
    const anchor = at === 0 ? 'start' : at * scale > TIMELINE_WIDTH - 40 ? 'end' : 'middle';
    ticks.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${AXIS_HEIGHT - 6}" y2="${height}"/>`,
      `<text class="axis" x="${x}" y="12" text-anchor="${anchor}">${escapeHtml(formatDuration(at))}</text>`,
    );
  }
  return `<svg id="timeline" viewBox="0 0 ${TIMELINE_WIDTH} ${height}" width="100%" role="img" aria-label="timeline: one bar per agent">${ticks.join('')}${parts.join('')}</svg>`;
}
