/**
 * Turns an armed, active goal into rounds. It owns no goal state: it reads the goal service and
 * the agent, and reacts to four signals: the agent went idle (schedule a round), the goal changed
 * (checkpoint, then schedule), a human message was queued (a waiting round yields to it and
 * does not count), and a round about to start (its reservation is checked; a stale one is
 * dropped unlogged). It never starts a round for a disarmed goal.
 */
import { agentMessageQueued, agentStatus, agentTurnEnd } from '../core/agent-hooks.js';
import { type Disposer, serviceKey } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { GOAL_SOURCE, type Goal, type GoalSettlement } from './contract.js';
import type { GoalService } from './goal-service.js';
import { roundPrompt } from './goal-text.js';

export const roundDriverKey = serviceKey<RoundDriver>('goal/round-driver');

interface Reservation {
  goalId: string;
  revision: number;
  round: number;
  /** A human message was queued after it: the round yields. */
  yielded: boolean;
}

export class RoundDriver {
  private readonly handle: AgentHandle;
  private readonly service: GoalService;
  private reservation: Reservation | undefined;
  private scheduled = false;
  private failure: string | undefined;
  private waiters: Array<(settlement: GoalSettlement) => void> = [];
  private readonly disposers: Disposer[];
  private disposed = false;

  constructor(options: { handle: AgentHandle; service: GoalService }) {
    this.handle = options.handle;
    this.service = options.service;
    const { context } = options.handle;
    const agentId = options.handle.agent.id;
    this.disposers = [
      context.on(agentStatus, (event) => {
        if (event.agentId !== agentId || event.status !== 'idle') return;
        // An idle agent has taken or dropped every follow-up: a reservation left now was
        // dropped unseen (the inbox was cancelled) and must not hold back the next round.
        this.reservation = undefined;
        this.request();
      }),
      options.service.onChange(() => {
        if (!this.handle.log.closed) this.handle.log.flush();
        this.request();
      }),
      context.on(agentMessageQueued, (event) => {
        if (event.agentId !== agentId || event.source !== undefined) return;
        if (event.delivery !== 'inject' && this.reservation) this.reservation.yielded = true;
      }),
      context.on(agentTurnEnd, ({ agentId: ended, outcome }) => {
        if (ended !== agentId || this.service.roundOf(outcome.turnId) === undefined) return;
        if (outcome.reason === 'completed' || outcome.reason === 'max-tokens') return;
        this.service.disarm();
        if (outcome.reason === 'error') {
          this.failure = `goal round ended with an error: ${outcome.error?.message ?? 'unknown'}`;
        }
      }),
    ];
  }

  /** Resolves the next time the driver stops driving (at once when it has nothing to drive). */
  whenSettled(): Promise<GoalSettlement> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.request();
    });
  }

  /** Looks again soon: after arming, or whenever the goal or the agent may have changed. */
  request(): void {
    if (this.scheduled || this.disposed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drive();
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const dispose of this.disposers) dispose();
    this.settle({ kind: 'disarmed', goal: this.service.problem ? null : this.service.goal });
  }

  private drive(): void {
    const { agent, log } = this.handle;
    if (this.disposed || log.closed || this.reservation) return;
    if (agent.status !== 'idle') return;
    log.flush();
    const stop = this.stopFor();
    if (stop) {
      this.settle(stop);
      return;
    }
    const goal = this.service.goal as Goal;
    const round = goal.roundsStarted + 1;
    const reservation: Reservation = {
      goalId: goal.id,
      revision: goal.revision,
      round,
      yielded: false,
    };
    this.reservation = reservation;
    agent.followup(roundPrompt(goal, round, this.service.lastRoundReport), {
      source: GOAL_SOURCE,
      round,
      admit: () => this.admit(reservation),
    });
  }

  /** Why no round may start now, or nothing when the next one may. */
  private stopFor(): GoalSettlement | undefined {
    const problem = this.service.problem;
    if (problem) {
      this.service.disarm();
      return { kind: 'error', goal: null, message: problem.message };
    }
    const goal = this.service.goal;
    if (this.failure !== undefined) {
      const message = this.failure;
      this.failure = undefined;
      return { kind: 'error', goal, message };
    }
    if (goal === null) return { kind: 'cleared' };
    if (goal.phase !== 'active') return { kind: goal.phase, goal };
    if (this.service.activation !== 'armed') return { kind: 'disarmed', goal };
    if (goal.roundsStarted >= goal.maxRounds) {
      this.service.disarm();
      return { kind: 'round-cap', goal };
    }
    return undefined;
  }

  /** Whether the reserved round may still start: nothing changed and no human is waiting. */
  private admit(reservation: Reservation): boolean {
    if (this.reservation === reservation) this.reservation = undefined;
    if (this.disposed || reservation.yielded || this.service.problem) return false;
    if (this.service.activation !== 'armed') return false;
    const goal = this.service.goal;
    return (
      goal !== null &&
      goal.phase === 'active' &&
      goal.id === reservation.goalId &&
      goal.revision === reservation.revision &&
      goal.roundsStarted + 1 === reservation.round
    );
  }

  private settle(settlement: GoalSettlement): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(settlement);
  }
}
