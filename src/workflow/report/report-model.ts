/**
 * The run report's model: what the page shows, worked out from a run's stored data with no I/O.
 * The timeline shows the latest attempt found in the events (a resume appends a new attempt);
 * earlier attempts are summarised. Agents come from the attempt's events, completed by the
 * result's agent list when events are missing. It never invents times: an agent without events
 * has no bar.
 */

import { addTokens, type TokenCount } from '../../llm/prices.js';
import type {
  AgentOutcome,
  WorkflowAgentEndEvent,
  WorkflowAgentStartEvent,
  WorkflowEventRecord,
} from '../contract.js';
import type { JournalRecord } from '../run-journal.js';
import type { RunReportInput } from './report-data.js';

/** How an agent is drawn: its outcome, or `journaled` (answered on resume), or never ended. */
export type AgentState = 'completed' | 'failed' | 'cancelled' | 'journaled' | 'unfinished';

export const AGENT_STATES: readonly AgentState[] = [
  'completed',
  'failed',
  'cancelled',
  'journaled',
  'unfinished',
];

export interface ReportAgent {
  seq: number;
  label: string;
  /** The agent's phase title; '' when it had none. */
  phase: string;
  workflow?: string;
  model?: string;
  state: AgentState;
  reason?: string;
  /** Absent when no event of the agent was kept. */
  startedAt?: number;
  endedAt?: number;
  /** Cache reads and writes (counted in `input` too) only when the agent reported any. */
  usage: TokenCount;
  costUsd?: number;
  /** The branch its changes are on (`isolation: 'worktree'`). */
  branch?: string;
  /** Its effort, and how it was sent or why it was not (`high: OpenAI reasoningEffort high`). */
  effort?: string;
}

/** The agents of one phase of one (top or nested) workflow, in start order. */
export interface ReportGroup {
  phase: string;
  workflow?: string;
  agents: ReportAgent[];
}

export interface ReportLogLine {
  time: number;
  kind: 'log' | 'phase';
  text: string;
  workflow?: string;
}

export interface ReportAttempt {
  number: number;
  startedAt: number;
  endedAt?: number;
  stopReason?: string;
  code?: string;
  agents: number;
  journaled: number;
}

export interface RunReport {
  input: RunReportInput;
  /**
   * The latest attempt (running, or killed) wrote no events yet: its agents are the calls its
   * journal holds, without times or phases.
   */
  fromJournal: boolean;
  /** Calls the running or killed attempt's journal holds beyond the completed agents shown. */
  unseenJournalCalls: number;
  /** The attempt the timeline shows (1-based, as counted in the events). */
  attempt?: ReportAttempt;
  attempts: ReportAttempt[];
  agents: ReportAgent[];
  groups: ReportGroup[];
  failures: ReportAgent[];
  logs: ReportLogLine[];
  /** The run's error, from the result (else only the record's code is known). */
  error?: { code: string; message: string };
  counts: Record<AgentState, number>;
  /** The tokens of the shown attempt's agents. */
  attemptTokens: TokenCount;
  /** The shown attempt's time span on the timeline. */
  span: { from: number; to: number };
}

/** Splits the events into attempts: each begins with a `workflow/start`. */
function splitAttempts(events: readonly WorkflowEventRecord[]): WorkflowEventRecord[][] {
  const attempts: WorkflowEventRecord[][] = [];
  for (const event of events) {
    if (event.type === 'workflow/start' || attempts.length === 0) attempts.push([]);
    attempts[attempts.length - 1]?.push(event);
  }
  return attempts;
}

function summarise(events: readonly WorkflowEventRecord[], number: number): ReportAttempt {
  const start = events.find((event) => event.type === 'workflow/start');
  const end = events.find((event) => event.type === 'workflow/end');
  let agents = 0;
  let journaled = 0;
  for (const event of events) {
    if (event.type !== 'workflow/agent-start') continue;
    agents += 1;
    if (event.journaled) journaled += 1;
  }
  return {
    number,
    startedAt: start?.time ?? events[0]?.time ?? 0,
    ...(end ? { endedAt: end.time, stopReason: end.stopReason } : {}),
    ...(end?.error ? { code: end.error.code } : {}),
    agents,
    journaled,
  };
}

const OUTCOMES: readonly string[] = ['completed', 'failed', 'cancelled'] satisfies AgentOutcome[];

/** The drawn state; an outcome the report does not know (a damaged file) counts as unfinished. */
function stateOf(outcome: unknown, journaled: unknown): AgentState {
  if (journaled === true) return 'journaled';
  return typeof outcome === 'string' && OUTCOMES.includes(outcome)
    ? (outcome as AgentOutcome)
    : 'unfinished';
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
/** A token count read from a file, which is read, not trusted: anything else counts as 0. */
function tokensOf(value: unknown): TokenCount {
  const fields = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const cachedInput = count(fields.cachedInput);
  const cacheWrite = count(fields.cacheWrite);
  return {
    input: count(fields.input),
    output: count(fields.output),
    ...(cachedInput > 0 ? { cachedInput } : {}),
    ...(cacheWrite > 0 ? { cacheWrite } : {}),
  };
}

const costOf = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? { costUsd: value } : {};

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : String(value);
}

function agentFrom(
  start: WorkflowAgentStartEvent | undefined,
  end: WorkflowAgentEndEvent | undefined,
  seq: number,
): ReportAgent {
  const first = start ?? end;
  const workflow = first?.workflow;
  const model = start?.model;
  return {
    seq,
    label: text(first?.label),
    phase: text(first?.phase),
    ...(workflow !== undefined ? { workflow: text(workflow) } : {}),
    ...(model !== undefined ? { model: text(model) } : {}),
    state: end ? stateOf(end.outcome, end.journaled) : 'unfinished',
    ...(end?.reason !== undefined ? { reason: text(end.reason) } : {}),
    ...(start ? { startedAt: start.time } : {}),
    ...(end ? { endedAt: end.time } : {}),
    usage: tokensOf(end?.usage),
    ...costOf(end?.costUsd),
    ...(typeof end?.branch === 'string' ? { branch: end.branch } : {}),
    ...effortOf(end?.effort),
  };
}

/** An end event's effort as one line; nothing when it has none or it is not the shape written. */
function effortOf(effort: unknown): { effort?: string } {
  if (typeof effort !== 'object' || effort === null) return {};
  const { level, control, note } = effort as Record<string, unknown>;
  if (typeof level !== 'string') return {};
  const how = typeof control === 'string' ? control : typeof note === 'string' ? note : '';
  return { effort: how === '' ? level : `${level}: ${how}` };
}

function agentsOf(events: readonly WorkflowEventRecord[], input: RunReportInput): ReportAgent[] {
  const starts = new Map<number, WorkflowAgentStartEvent>();
  const ends = new Map<number, WorkflowAgentEndEvent>();
  for (const event of events) {
    // The seq lands in ids and attributes: only a whole number is an agent.
    if (event.type === 'workflow/agent-start' && Number.isSafeInteger(event.seq)) {
      starts.set(event.seq, event);
    }
    if (event.type === 'workflow/agent-end' && Number.isSafeInteger(event.seq)) {
      ends.set(event.seq, event);
    }
  }
  const bySeq = new Map<number, ReportAgent>();
  for (const seq of new Set([...starts.keys(), ...ends.keys()])) {
    bySeq.set(seq, agentFrom(starts.get(seq), ends.get(seq), seq));
  }
  // The result lists every agent of the latest attempt: it fills in any whose events were lost.
  const { result } = input;
  if (result && Array.isArray(result.agents)) {
    const failures = Array.isArray(result.failures) ? result.failures : [];
    const reasons = new Map(failures.map((failure) => [failure?.seq, failure]));
    for (const agent of result.agents) {
      if (!Number.isSafeInteger(agent?.seq) || bySeq.has(agent.seq)) continue;
      const failure = reasons.get(agent.seq);
      bySeq.set(agent.seq, {
        seq: agent.seq,
        label: text(agent.label),
        phase: '',
        ...(agent.workflow !== undefined ? { workflow: text(agent.workflow) } : {}),
        state: stateOf(agent.outcome, agent.journaled),
        ...(failure ? { reason: text(failure.reason) } : {}),
        usage: tokensOf(agent.tokens),
        ...costOf(agent.costUsd),
        ...(typeof agent.branch === 'string' ? { branch: agent.branch } : {}),
      });
    }
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** Groups by nested workflow and phase, in the order each group's first agent started. */
function groupsOf(agents: readonly ReportAgent[]): ReportGroup[] {
  const groups = new Map<string, ReportGroup>();
  for (const agent of agents) {
    const key = JSON.stringify([agent.workflow ?? null, agent.phase]);
    let group = groups.get(key);
    if (!group) {
      group = {
        phase: agent.phase,
        ...(agent.workflow !== undefined ? { workflow: agent.workflow } : {}),
        agents: [],
      };
      groups.set(key, group);
    }
    group.agents.push(agent);
  }
  return [...groups.values()];
}

function logsOf(events: readonly WorkflowEventRecord[]): ReportLogLine[] {
  const lines: ReportLogLine[] = [];
  for (const event of events) {
    if (event.type !== 'workflow/log' && event.type !== 'workflow/phase') continue;
    const workflow = event.workflow !== undefined ? { workflow: text(event.workflow) } : {};
    if (event.type === 'workflow/log') {
      lines.push({ time: event.time, kind: 'log', text: text(event.message), ...workflow });
    } else {
      lines.push({ time: event.time, kind: 'phase', text: text(event.title), ...workflow });
    }
  }
  return lines;
}

function spanOf(
  events: readonly WorkflowEventRecord[],
  agents: readonly ReportAgent[],
): RunReport['span'] {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const event of events) {
    from = Math.min(from, event.time);
    to = Math.max(to, event.time);
  }
  for (const agent of agents) {
    if (agent.startedAt !== undefined) from = Math.min(from, agent.startedAt);
    if (agent.endedAt !== undefined) to = Math.max(to, agent.endedAt);
  }
  if (!Number.isFinite(from)) return { from: 0, to: 0 };
  return { from, to: Math.max(to, from) };
}

/** The journal's calls as completed agents, numbered in the order they completed. */
function journalAgents(journal: readonly JournalRecord[]): ReportAgent[] {
  return journal.map((line, index) => ({
    seq: index + 1,
    label: text(line.label),
    phase: '',
    ...(line.workflow !== undefined ? { workflow: text(line.workflow) } : {}),
    state: 'completed',
    usage: tokensOf(line.usage),
  }));
}

export function buildRunReport(input: RunReportInput): RunReport {
  const attemptEvents = splitAttempts(input.events);
  const attempts = attemptEvents.map((events, index) => summarise(events, index + 1));
  const started = input.events.filter((event) => event.type === 'workflow/start').length;
  const fromJournal = input.record.status === 'running' && started < input.record.attempt;
  if (fromJournal) {
    attempts.push({
      number: input.record.attempt,
      startedAt: input.record.attemptStartedAt,
      agents: input.journal.length,
      journaled: 0,
    });
  }
  const events = fromJournal ? [] : (attemptEvents.at(-1) ?? []);
  const agents = fromJournal ? journalAgents(input.journal) : agentsOf(events, input);
  const span = spanOf(events, agents);
  // An agent that never ended ran until the last thing the attempt recorded.
  for (const agent of agents) {
    if (agent.state === 'unfinished' && agent.startedAt !== undefined) agent.endedAt ??= span.to;
  }
  const counts: Record<AgentState, number> = {
    completed: 0,
    failed: 0,
    cancelled: 0,
    journaled: 0,
    unfinished: 0,
  };
  let attemptTokens: TokenCount = { input: 0, output: 0 };
  for (const agent of agents) {
    counts[agent.state] += 1;
    attemptTokens = addTokens(attemptTokens, agent.usage);
  }
  const resultError = input.result?.error;
  const endError = events.find((event) => event.type === 'workflow/end')?.error;
  const error = resultError ?? endError;
  const attempt = attempts.at(-1);
  const completedLive = events.filter(
    (event) =>
      event.type === 'workflow/agent-end' && event.outcome === 'completed' && !event.journaled,
  ).length;
  return {
    input,
    fromJournal,
    unseenJournalCalls: fromJournal ? 0 : Math.max(0, input.journal.length - completedLive),
    ...(attempt ? { attempt } : {}),
    attempts,
    agents,
    groups: groupsOf(agents),
    failures: agents.filter((agent) => agent.state === 'failed' || agent.state === 'cancelled'),
    logs: logsOf(events),
    ...(error ? { error: { code: text(error.code), message: text(error.message) } } : {}),
    counts,
    attemptTokens,
    span,
  };
}
