/**
 * The terminal's fold of workflow runs: every run with its phases and every agent it started
 * (seq, label, phase, status, tokens, start and end, and its session id when the registry's
 * `subagent/start` names it). Each event costs O(1), so a run of hundreds of agents stays cheap;
 * views read the runs and draw. It never changes a run and never throws on an unknown event.
 */

import { assertNever } from '../base/errors.js';
import { WorkflowProgressState } from '../cli/workflow-progress-state.js';
import type { Usage } from '../llm/contract.js';
import type { SubagentStartEvent } from '../subagent/contract.js';
import type {
  AgentOutcome,
  WorkflowEventRecord,
  WorkflowRunErrorCode,
  WorkflowStopReason,
} from '../workflow/contract.js';

export type WorkflowAgentStatus = 'running' | AgentOutcome;

export interface WorkflowAgentView {
  seq: number;
  label: string;
  phase: string;
  status: WorkflowAgentStatus;
  model?: string;
  /** Known once the agent ended. */
  usage?: Usage;
  /** Why a failed or cancelled agent stopped. */
  reason?: string;
  startedAt: number;
  endedAt?: number;
  /** The agent's own session, whose log holds its transcript. */
  sessionId?: string;
}

export interface PhaseCounts {
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface WorkflowPhaseView {
  title: string;
  /** Agents in the order they started. */
  agents: WorkflowAgentView[];
  counts: PhaseCounts;
}

export interface WorkflowView {
  runId: string;
  /** Name, declared phases, run-wide counts and tokens. */
  state: WorkflowProgressState;
  startedAt: number;
  endedAt?: number;
  stopReason?: WorkflowStopReason;
  error?: { code: WorkflowRunErrorCode; message: string };
  /** Every agent by seq. */
  agents: Map<number, WorkflowAgentView>;
  /** Phases that have agents, in the order their first agent started. */
  phases: Map<string, WorkflowPhaseView>;
}

const emptyCounts = (): PhaseCounts => ({ running: 0, completed: 0, failed: 0, cancelled: 0 });

export class WorkflowRuns {
  private readonly runs = new Map<string, WorkflowView>();
  private listed: WorkflowView[] = [];
  private runningRuns = 0;
  /**
   * The latest `subagent/start`: the registry emits it right before the workflow's own
   * `workflow/agent-start` for the same child, synchronously, so the next agent start whose
   * label matches its description is that child.
   */
  private lastChild: { sessionId: string; description: string } | undefined;

  /** Runs in the order they started; the same array until a run is added. */
  get list(): readonly WorkflowView[] {
    return this.listed;
  }

  /** Runs that have not ended. */
  get running(): number {
    return this.runningRuns;
  }

  get(runId: string): WorkflowView | undefined {
    return this.runs.get(runId);
  }

  noteChildStart(event: SubagentStartEvent): void {
    this.lastChild = { sessionId: event.runId, description: event.description };
  }

  apply(record: WorkflowEventRecord): void {
    const run = this.runOf(record);
    run.state.apply(record);
    switch (record.type) {
      case 'workflow/start':
      case 'workflow/phase':
      case 'workflow/log':
        return;
      case 'workflow/agent-start': {
        const agent: WorkflowAgentView = {
          seq: record.seq,
          label: record.label,
          phase: record.phase,
          status: 'running',
          startedAt: record.time,
          ...(record.model !== undefined ? { model: record.model } : {}),
        };
        const child = this.lastChild;
        this.lastChild = undefined;
        if (child && child.description === record.label) agent.sessionId = child.sessionId;
        run.agents.set(record.seq, agent);
        const phase = this.phaseOf(run, record.phase);
        phase.agents.push(agent);
        phase.counts.running += 1;
        return;
      }
      case 'workflow/agent-end': {
        const agent = run.agents.get(record.seq);
        if (agent?.status !== 'running') return;
        agent.status = record.outcome;
        agent.endedAt = record.time;
        if (record.usage) agent.usage = { ...record.usage };
        if (record.reason !== undefined) agent.reason = record.reason;
        const counts = this.phaseOf(run, agent.phase).counts;
        counts.running -= 1;
        counts[record.outcome] += 1;
        return;
      }
      case 'workflow/end':
        if (run.stopReason === undefined) this.runningRuns -= 1;
        run.endedAt = record.time;
        run.stopReason = record.stopReason;
        if (record.error) run.error = { ...record.error };
        return;
      default:
        assertNever(record, 'workflow event');
    }
  }

  private runOf(record: WorkflowEventRecord): WorkflowView {
    let run = this.runs.get(record.runId);
    if (!run) {
      run = {
        runId: record.runId,
        state: new WorkflowProgressState(),
        startedAt: record.time,
        agents: new Map(),
        phases: new Map(),
      };
      this.runs.set(record.runId, run);
      this.listed = [...this.listed, run];
      this.runningRuns += 1;
    }
    return run;
  }

  private phaseOf(run: WorkflowView, title: string): WorkflowPhaseView {
    let phase = run.phases.get(title);
    if (!phase) {
      phase = { title, agents: [], counts: emptyCounts() };
      run.phases.set(title, phase);
    }
    return phase;
  }
}
