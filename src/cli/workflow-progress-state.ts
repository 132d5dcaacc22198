/**
 * What a progress view knows about one workflow run, folded from its `workflow/*` events: the
 * phases (a nested run's apart), the agents running and how the others ended, tokens and cost,
 * and the last few log lines. Pure data; it never renders and never throws on an event it has not
 * seen a start for.
 */
import { assertNever } from '../base/errors.js';
import type { Usage } from '../llm/contract.js';
import type { WorkflowEventRecord } from '../workflow/contract.js';
import { nestedPrefix } from '../workflow/run-events.js';

export type PhaseStatus = 'done' | 'current' | 'pending';

/** Log lines the live view keeps. */
const KEPT_LOGS = 4;

export class WorkflowProgressState {
  name = '';
  /** How many agents may run at once, from `workflow/start`. */
  slots: number | undefined;
  phase: string | undefined;
  /** The phase of the nested run (`workflow()`) now running, as `[name] title`. */
  nestedPhase: string | undefined;
  /** A status line from the command (such as "cancelling…"), shown under the logs. */
  notice: string | undefined;
  readonly logs: string[] = [];
  readonly usage: Usage = { input: 0, output: 0 };
  readonly counts = { running: 0, completed: 0, failed: 0, cancelled: 0 };
  /** Agents answered from the run's journal (counted as completed too). */
  journaled = 0;
  private costSum = 0;
  private costSeen = false;
  private costUnknown = false;
  private declaredPhases: string[] = [];
  private readonly enteredPhases: string[] = [];
  private readonly running = new Map<number, string>();

  apply(event: WorkflowEventRecord): void {
    switch (event.type) {
      case 'workflow/start':
        this.name = event.name;
        this.slots = event.slots;
        this.declaredPhases = [...event.phases];
        return;
      case 'workflow/phase':
        if (event.workflow !== undefined) {
          this.nestedPhase = `${nestedPrefix(event)}${event.title}`;
          return;
        }
        this.phase = event.title;
        this.nestedPhase = undefined;
        if (!this.enteredPhases.includes(event.title)) this.enteredPhases.push(event.title);
        return;
      case 'workflow/log':
        this.logs.push(`${nestedPrefix(event)}${event.message}`);
        if (this.logs.length > KEPT_LOGS) this.logs.splice(0, this.logs.length - KEPT_LOGS);
        return;
      case 'workflow/agent-start':
        this.running.set(event.seq, `${nestedPrefix(event)}${event.label}`);
        this.counts.running = this.running.size;
        return;
      case 'workflow/agent-end':
        this.running.delete(event.seq);
        this.counts.running = this.running.size;
        this.counts[event.outcome] += 1;
        if (event.journaled) this.journaled += 1;
        this.usage.input += event.usage.input;
        this.usage.output += event.usage.output;
        if (event.costUsd !== undefined) {
          this.costSum += event.costUsd;
          this.costSeen = true;
        } else if (!event.journaled) this.costUnknown = true;
        return;
      case 'workflow/end':
        // A run that completed has no phase in progress; one that stopped keeps the phase it
        // stopped in marked.
        if (event.stopReason === 'completed') {
          this.phase = undefined;
          this.nestedPhase = undefined;
        }
        return;
      default:
        assertNever(event, 'workflow event');
    }
  }

  /** The cost of the ended agents; undefined unless every one of them had a price. */
  get costUsd(): number | undefined {
    return this.costSeen && !this.costUnknown ? this.costSum : undefined;
  }

  /** Declared phases in order, then any phase the script entered that meta did not declare. */
  phaseList(): Array<{ title: string; status: PhaseStatus }> {
    const titles = [
      ...this.declaredPhases,
      ...this.enteredPhases.filter((title) => !this.declaredPhases.includes(title)),
    ];
    return titles.map((title) => ({
      title,
      status:
        title === this.phase ? 'current' : this.enteredPhases.includes(title) ? 'done' : 'pending',
    }));
  }

  /** Labels of the oldest running agents, and how many more run. */
  runningLabels(limit: number): { shown: string[]; more: number } {
    const labels = [...this.running.values()];
    return { shown: labels.slice(0, limit), more: Math.max(0, labels.length - limit) };
  }
}
