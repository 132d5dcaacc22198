/**
 * The session's slash commands: `/model [SPEC]`, `/resume` (a picker of this workspace's
 * sessions), `/goal [OBJECTIVE | pause | resume [ROUNDS] | clear]` (rounds run in this process),
 * `/todos`, `/compact` (prunes old tool results now, when no turn runs) and `/cost`. They act as the human; a refused change is reported as a notice and
 * never reaches the model.
 */

import { UserError } from '../../base/errors.js';
import { normalizeSettlement } from '../../cli/goal-output.js';
import { todoLines } from '../../cli/render-todos.js';
import { compactAgent } from '../../context/manual-compaction.js';
import type { AgentHandle } from '../../core/create-agent.js';
import type { Goal, GoalSettlement } from '../../goal/contract.js';
import { goalOf } from '../../goal/install.js';
import { formatCost } from '../../llm/prices.js';
import { tokensText } from '../../llm/usage-text.js';
import { todosOf } from '../../todo/install.js';
import type { TuiStore } from '../tui-store.js';
import type { AgentUsage } from '../usage-ledger.js';
import type { SlashCommand, SlashContext } from './contract.js';

function info(store: TuiStore, text: string): void {
  store.add({ kind: 'notice', tone: 'info', text });
}

const modelCommand: SlashCommand = {
  name: 'model',
  usage: '[SPEC]',
  description: "show the model, or switch this session's model for the next turns",
  run(args, { session, store }) {
    const { agent } = session.current;
    if (args === '') {
      info(
        store,
        `model ${agent.model.id} (default ${session.setup.modelSpec}); switch with /model provider:model`,
      );
      return;
    }
    const client = session.setup.resolveModel(args);
    agent.setModel(client);
    info(
      store,
      `model ${client.id} from the next turn on${agent.status === 'idle' ? '' : ' (this turn keeps its model)'}`,
    );
  },
};

const resumeCommand: SlashCommand = {
  name: 'resume',
  description: "pick one of this workspace's sessions to reopen (esc returns)",
  run(_args, { session, store, setView }) {
    if (session.storedSessions().every((summary) => summary.id === session.sessionId)) {
      info(store, 'no other session in this workspace to resume');
      return;
    }
    setView('sessions');
  },
};

const todosCommand: SlashCommand = {
  name: 'todos',
  description: "show this session's todo list",
  run(_args, { session, store }) {
    const todos = todosOf(session.current);
    if (!todos) {
      store.add({ kind: 'notice', tone: 'warning', text: 'todos are not available here' });
      return;
    }
    const lines = todos.problem ? [`the todo list cannot be read: ${todos.problem}`] : [];
    info(
      store,
      ['todos:', ...todoLines(todos.todos).map((line) => `  ${line}`), ...lines].join('\n'),
    );
  },
};

const compactCommand: SlashCommand = {
  name: 'compact',
  description: "prune old tool results from the model's view now (recall brings any back)",
  async run(args, { session, store }) {
    const handle = session.current;
    if (handle.agent.status !== 'idle') {
      store.add({
        kind: 'notice',
        tone: 'warning',
        text: '/compact waits for an idle session: a turn is running (esc interrupts it)',
      });
      return;
    }
    const instructions = args.trim();
    if (instructions !== '') info(store, 'compacting: the model is writing a summary…');
    // The compaction, or why there was none, is logged: the transcript shows it as its line
    // (a summary folded under it), so no notice repeats it.
    await compactAgent(handle, {
      keepSteps: session.setup.context.keepSteps,
      ...(instructions !== '' ? { instructions } : {}),
    });
  },
};

function usageLine(usage: AgentUsage): string {
  const indent = '  '.repeat(usage.delegationDepth + 1);
  const cost = usage.costUsd !== undefined ? formatCost(usage.costUsd) : 'no price';
  const models = [...usage.models.keys()].join(', ') || 'no requests';
  return `${indent}${usage.label}: ${tokensText(usage.tokens)} · ${cost} · ${models}`;
}

/** Where a missing price goes in config: the model's own entry, or the table by model spec. */
function priceHint(model: string): string {
  const key = JSON.stringify(model);
  return `config: models.${key}.prices or prices.${key}, each {input, output, cacheRead?, cacheWrite?} in dollars per million tokens`;
}

const costCommand: SlashCommand = {
  name: 'cost',
  description: 'tokens and cost per agent and in total (prices from config)',
  run(_args, { store }) {
    const { ledger } = store;
    const total = ledger.total();
    const cost =
      total.costUsd !== undefined
        ? formatCost(total.costUsd)
        : `cost unknown: no price for ${total.unpriced.join(', ')} (${priceHint(total.unpriced[0] ?? 'provider:model')})`;
    info(
      store,
      [
        'cost per agent:',
        ...ledger.agents().map(usageLine),
        `total: ${tokensText(total.tokens)} · ${cost}`,
      ].join('\n'),
    );
  },
};

function describeGoal(goal: Goal, armed: boolean): string {
  const state = armed
    ? 'running here'
    : goal.phase === 'active'
      ? 'active, not running'
      : goal.phase;
  const reason = goal.reason ? ` (${goal.reason})` : '';
  return `goal ${goal.id}: ${goal.objective}\n${state}${reason}, round ${goal.roundsStarted} of ${goal.maxRounds}`;
}

/** What the transcript says when the rounds stop. */
export function settlementNotice(settlement: GoalSettlement): {
  tone: 'info' | 'warning' | 'error';
  text: string;
} {
  switch (settlement.kind) {
    case 'complete':
      return {
        tone: 'info',
        text: `goal complete after ${settlement.goal.roundsStarted} rounds${settlement.goal.reason ? `: ${settlement.goal.reason}` : ''}`,
      };
    case 'blocked':
      return {
        tone: 'warning',
        text: `goal blocked: ${settlement.goal.reason ?? 'no reason given'}; /goal resume once it is unblocked`,
      };
    case 'paused':
      return { tone: 'info', text: 'goal paused; /goal resume goes on' };
    case 'cleared':
      return { tone: 'info', text: 'goal cleared' };
    case 'round-cap':
      return {
        tone: 'warning',
        text: `goal started all ${settlement.goal.maxRounds} rounds without completing; /goal resume N raises the cap to N`,
      };
    case 'disarmed':
      return {
        tone: 'warning',
        text: 'goal rounds stopped (the round did not finish); /goal resume goes on',
      };
    case 'error':
      return { tone: 'error', text: `goal stopped: ${settlement.message}` };
  }
}

/** Arms the goal and says, once, why its rounds stopped (unless the session was left). */
function driveGoal(handle: AgentHandle, context: SlashContext, announce: string): void {
  const goals = goalOf(handle);
  if (!goals) return;
  if (goals.service.activation === 'armed') {
    info(context.store, 'the goal is already running here');
    return;
  }
  const goal = goals.service.arm();
  info(
    context.store,
    `${announce}; its rounds run here (round ${goal.roundsStarted + 1} of ${goal.maxRounds} next; /goal pause stops them)`,
  );
  void goals.driver.whenSettled().then((settlement) => {
    if (context.session.current !== handle) return;
    context.store.add({ kind: 'notice', ...settlementNotice(normalizeSettlement(settlement)) });
  });
}

function parseRounds(text: string): number | undefined {
  if (text === '') return undefined;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `/goal resume takes a round cap, a whole number of at least 1, not "${text}"`,
    );
  }
  return rounds;
}

const goalCommand: SlashCommand = {
  name: 'goal',
  usage: '[OBJECTIVE | pause | resume [ROUNDS] | clear]',
  description: 'show or set the goal; its rounds run here until it completes',
  run(args, context) {
    const handle = context.session.current;
    const goals = goalOf(handle);
    if (!goals) {
      context.store.add({ kind: 'notice', tone: 'warning', text: 'goals are not available here' });
      return;
    }
    const { service } = goals;
    const [word = '', ...rest] = args.split(/\s+/);
    const goal = service.goal;
    if (args === '') {
      info(
        context.store,
        goal === null
          ? 'no goal; /goal OBJECTIVE sets one and runs its rounds'
          : describeGoal(goal, service.activation === 'armed'),
      );
      return;
    }
    const keyword =
      ['pause', 'resume', 'clear'].includes(word) && (word === 'resume' || rest.length === 0);
    if (!keyword) {
      const created = service.create({ objective: args, by: 'human' });
      driveGoal(handle, context, `goal ${created.id} set: ${created.objective}`);
      return;
    }
    if (goal === null) throw new UserError('INVALID_ARGUMENT', `there is no goal to ${word}`);
    const ref = { goalId: goal.id, revision: goal.revision };
    if (word === 'pause' || word === 'clear') {
      service.update(
        ref,
        {
          action: word,
          reason: `${word === 'pause' ? 'paused' : 'cleared'} by the user (/goal ${word})`,
        },
        'human',
      );
      info(
        context.store,
        word === 'pause'
          ? `goal ${goal.id} paused; /goal resume goes on`
          : `goal ${goal.id} cleared`,
      );
      return;
    }
    const maxRounds = parseRounds(rest.join(' '));
    const cap = maxRounds ?? goal.maxRounds;
    if (cap <= goal.roundsStarted) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `goal ${goal.id} has started ${goal.roundsStarted} of its ${goal.maxRounds} rounds; /goal resume N with N above ${goal.roundsStarted} raises the cap`,
      );
    }
    if (goal.phase !== 'active' || maxRounds !== undefined) {
      service.update(
        ref,
        { action: 'resume', ...(maxRounds !== undefined ? { maxRounds } : {}) },
        'human',
      );
    }
    driveGoal(handle, context, `goal ${goal.id} resumed`);
  },
};

export const SESSION_COMMANDS: readonly SlashCommand[] = [
  modelCommand,
  resumeCommand,
  goalCommand,
  todosCommand,
  compactCommand,
  costCommand,
];
