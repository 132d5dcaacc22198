/**
 * The model's goal tools: `create_goal`, `get_goal`, `update_goal`, given to root agents only.
 * Each returns the goal as a JSON object. Authority comes from the log of the calling turn:
 * creating, editing, pausing, resuming and clearing need the human's own message in this turn;
 * `complete` and `blocked` may also come from the current goal round, `blocked` only once the
 * same reason was reported in enough consecutive rounds. A refusal says what to do instead.
 */
import type { z } from 'zod';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition, ToolExecution } from '../core/tool-contract.js';
import { type GoalActor, GoalError } from './contract.js';
import { UPDATE_GOAL_TOOL } from './fold.js';
import { type GoalService, goalServiceKey, MAX_ROUND_CAP } from './goal-service.js';
import { goalView } from './goal-text.js';

export const GOAL_TOOL_NAMES = ['create_goal', 'get_goal', UPDATE_GOAL_TOOL] as const;

const updateActions = ['edit', 'pause', 'resume', 'complete', 'blocked', 'clear'] as const;
type UpdateAction = (typeof updateActions)[number];

/** Who is asking in this turn: the human (their own message is in it) or the current round. */
function askerOf(service: GoalService, execution: ToolExecution): GoalActor | undefined {
  if (service.hasHumanInput(execution.turnId)) return 'model';
  if (service.roundOf(execution.turnId) !== undefined) return 'round';
  return undefined;
}

function refuse(action: string): never {
  throw new GoalError(
    'GOAL_AUTHORITY',
    `${action} needs the user's own request in this turn; ask the user, or report in your answer instead`,
  );
}

const json = (value: unknown) => JSON.stringify(value);
const roundCap = (zod: typeof z, description: string) =>
  zod.number().int().min(1).max(MAX_ROUND_CAP).optional().describe(description);
const serviceOf = (execution: ToolExecution) => execution.context.get(goalServiceKey);

export function goalTools(): ToolDefinition[] {
  const createGoal = defineBuiltinTool({
    name: 'create_goal',
    deferral: 'rare',
    summary: 'Set a persistent goal, worked on in rounds until complete or blocked.',
    description:
      'Set a persistent goal for this session when the user asks you to keep working on an objective until it is done. Rounds then start by themselves after your turn until you report it complete or blocked. Only one goal at a time. Returns the goal as JSON.',
    arguments: (zod) =>
      zod.strictObject({
        objective: zod.string().min(1).describe('What must be true when the goal is complete.'),
        max_rounds: roundCap(zod, 'How many rounds it may take at most (default from config, 20).'),
      }),
    execute(args, execution) {
      const service = serviceOf(execution);
      if (askerOf(service, execution) !== 'model') refuse('create_goal');
      const goal = service.create({
        objective: args.objective,
        ...(args.max_rounds !== undefined ? { maxRounds: args.max_rounds } : {}),
        by: 'model',
      });
      service.arm();
      return json(goalView(goal));
    },
  });

  const getGoal = defineBuiltinTool({
    name: 'get_goal',
    deferral: 'rare',
    summary: "Read this session's goal as JSON.",
    description:
      'Read this session\'s goal as JSON: goal_id, revision (name it in update_goal), objective, phase, rounds_started, max_rounds, reason; {"goal": null} when there is none.',
    arguments: (zod) => zod.strictObject({}),
    concurrencySafe: true,
    execute(_args, execution) {
      return json(goalView(serviceOf(execution).goal));
    },
  });

  const updateGoal = defineBuiltinTool({
    name: UPDATE_GOAL_TOOL,
    deferral: 'rare',
    summary: 'Complete, block, edit, pause, resume or clear the goal.',
    description:
      'Change the goal at the revision you read. complete: the objective is met and checked (reason: the evidence). blocked: you cannot go on without the user (reason: what blocks you; from a goal round it is accepted once the same reason was reported in several consecutive rounds). edit, pause, resume and clear only when the user asks for them. Returns the goal as JSON.',
    arguments: (zod) =>
      zod.strictObject({
        goal_id: zod.string().min(1),
        revision: zod.number().int().min(1).describe('The revision you read (get_goal).'),
        action: zod.enum(updateActions),
        objective: zod.string().min(1).optional().describe('The new objective (edit).'),
        max_rounds: roundCap(
          zod,
          'A new cap on the rounds in all (edit, resume), when the user asks for more.',
        ),
        reason: zod
          .string()
          .optional()
          .describe('Evidence (complete) or what blocks you (blocked).'),
      }),
    execute(args, execution) {
      const service = serviceOf(execution);
      const action: UpdateAction = args.action;
      const asker = askerOf(service, execution);
      const byRound = action === 'complete' || action === 'blocked';
      if (asker === undefined || (asker === 'round' && !byRound)) refuse(`update_goal ${action}`);
      if (action === 'blocked' && asker === 'round') {
        const needed = service.settings.blockedAfterConsecutiveRounds;
        const streak = service.blockStreak(args.reason ?? '');
        if (streak < needed) {
          throw new GoalError(
            'GOAL_BLOCK_EARLY',
            `not accepted yet: this reason was reported in ${streak} consecutive round(s), and blocked needs ${needed}. Try a different approach now; if the same thing still blocks you, report the same reason again in the next round.`,
          );
        }
      }
      const goal = service.update(
        { goalId: args.goal_id, revision: args.revision },
        {
          action,
          ...(args.objective !== undefined ? { objective: args.objective } : {}),
          ...(args.reason !== undefined ? { reason: args.reason } : {}),
          ...(args.max_rounds !== undefined ? { maxRounds: args.max_rounds } : {}),
        },
        asker as GoalActor,
      );
      if (action === 'resume') service.arm();
      return json(goalView(goal));
    },
  });

  return [createGoal, getGoal, updateGoal];
}
