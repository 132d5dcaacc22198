/**
 * ACP prompts and the session's goal. A prompt starting with `/goal` is a command acting as the
 * human at the goal's current revision (errors are replied as text, never as protocol errors);
 * any other prompt is a human turn. A prompt that leaves the goal armed (`/goal OBJECTIVE`,
 * `/goal resume`, or a turn in which the model called create_goal or update_goal resume) returns
 * only once the goal settles: rounds run after it, each streamed like a follow-up turn (its
 * output, not its prompt, which is not the human's), then one closing agent_message_chunk says
 * why they stopped and the stop reason is `end_turn` (complete, blocked, paused, cleared, round
 * cap, or a failed round, which leaves the goal active and disarmed). A `session/cancel` meanwhile
 * pauses an armed goal as the human and the prompt returns `cancelled`. A turn that fails or is
 * aborted before any round disarms the goal, so no round ever runs after a prompt has returned.
 * A prompt is answered (its stop reason, or the error of a failed turn) only once every update it
 * queued has been written.
 */
import type { StopReason } from '@agentclientprotocol/sdk';
import { LoomError } from '../base/errors.js';
import { type Goal, GoalError } from '../goal/contract.js';
import type { GoalService } from '../goal/goal-service.js';
import { goalOf } from '../goal/install.js';
import type { RoundDriver } from '../goal/round-driver.js';
import type { ImageReference } from '../llm/contract.js';
import type { AcpSession } from './acp-sessions.js';
import {
  type GoalCommand,
  goalShown,
  parseGoalCommand,
  settlementText,
  USAGE,
} from './goal-command-text.js';
import { stopReasonOf } from './prompt-turn.js';

interface GoalLayer {
  service: GoalService;
  driver: RoundDriver;
}

/** One prompt in progress: whether the client cancelled it. */
interface PromptWatch {
  cancelled: boolean;
}

const watches = new WeakMap<AcpSession, Set<PromptWatch>>();

/**
 * Answers one `session/prompt` whose text is `text` (with `images`, already kept); resolves once
 * any rounds it armed settle.
 */
export async function answerPrompt(
  session: AcpSession,
  text: string,
  images: readonly ImageReference[] = [],
): Promise<StopReason> {
  const watch: PromptWatch = { cancelled: false };
  const open = watches.get(session) ?? new Set<PromptWatch>();
  watches.set(session, open);
  open.add(watch);
  try {
    const command = parseGoalCommand(text);
    return command
      ? await runGoalCommand(session, command, watch)
      : await runHumanTurn(session, text, watch, images);
  } finally {
    open.delete(watch);
    // Every update of the prompt goes out before its answer, a failed turn's error included:
    // behind a client that reads slowly the updates wait in the queue, and the answer must too.
    await session.flushed();
  }
}

/**
 * For `session/cancel`, before the turn is cancelled: marks the session's prompts cancelled and
 * pauses an armed goal as the human, so no further round is admitted.
 */
export function pauseOnCancel(session: AcpSession, cause: string): void {
  for (const watch of watches.get(session) ?? []) watch.cancelled = true;
  const layer = goalOf(session.handle);
  if (!layer || layer.service.problem || layer.service.activation !== 'armed') return;
  const goal = layer.service.goal;
  if (goal?.phase !== 'active') return;
  try {
    layer.service.update(refOf(goal), { action: 'pause', reason: cause }, 'human');
  } catch (error) {
    layer.service.disarm();
    process.stderr.write(`loom acp: pausing goal ${goal.id} failed: ${error}\n`);
  }
}

async function runHumanTurn(
  session: AcpSession,
  text: string,
  watch: PromptWatch,
  images: readonly ImageReference[],
): Promise<StopReason> {
  const outcome = await session.handle.agent.prompt(
    text,
    images.length > 0 ? { images: [...images] } : {},
  );
  const layer = goalOf(session.handle);
  if (layer?.service.activation === 'armed') {
    if (outcome.reason === 'completed' || outcome.reason === 'max-tokens') {
      return driveRounds(session, layer, watch, '\n\n');
    }
    layer.service.disarm();
  }
  return stopReasonOf(outcome);
}

async function runGoalCommand(
  session: AcpSession,
  command: GoalCommand,
  watch: PromptWatch,
): Promise<StopReason> {
  const layer = goalOf(session.handle);
  if (!layer) {
    reply(session, 'This session cannot have a goal.');
    return 'end_turn';
  }
  const { service } = layer;
  try {
    switch (command.kind) {
      case 'usage':
        reply(session, USAGE);
        return 'end_turn';
      case 'show':
        reply(session, goalShown(service.goal, service.activation, service.history));
        return 'end_turn';
      case 'create': {
        const goal = service.create({ objective: command.objective, by: 'human' });
        service.arm();
        reply(
          session,
          `Goal ${goal.id} started (at most ${goal.maxRounds} rounds): ${goal.objective}\n\n`,
        );
        return driveRounds(session, layer, watch, '\n\n');
      }
      case 'pause':
      case 'clear': {
        const goal = currentGoal(service);
        service.update(refOf(goal), { action: command.kind }, 'human');
        reply(session, `Goal ${goal.id} is ${command.kind === 'pause' ? 'paused' : 'cleared'}.`);
        return 'end_turn';
      }
      case 'resume': {
        const goal = currentGoal(service);
        const update =
          command.maxRounds === undefined
            ? { action: 'resume' as const }
            : { action: 'resume' as const, maxRounds: command.maxRounds };
        service.update(refOf(goal), update, 'human');
        const resumed = service.arm();
        reply(
          session,
          `Goal ${resumed.id} resumed (round ${resumed.roundsStarted + 1} of ${resumed.maxRounds} next).\n\n`,
        );
        return driveRounds(session, layer, watch, '\n\n');
      }
    }
  } catch (error) {
    if (!(error instanceof LoomError)) throw error;
    reply(session, `/goal ${command.kind} refused (${error.code}): ${error.message}`);
    return 'end_turn';
  }
}

/** Waits until the armed goal settles, then says why; `cancelled` when the client cancelled. */
async function driveRounds(
  session: AcpSession,
  layer: GoalLayer,
  watch: PromptWatch,
  separator: string,
): Promise<StopReason> {
  const settlement = await layer.driver.whenSettled();
  reply(session, `${separator}${settlementText(settlement)}`);
  return watch.cancelled ? 'cancelled' : 'end_turn';
}

function currentGoal(service: GoalService): Goal {
  const goal = service.goal;
  if (goal === null) {
    throw new GoalError(
      'GOAL_NOT_FOUND',
      'this session has no goal; start one with /goal OBJECTIVE',
    );
  }
  return goal;
}

const refOf = (goal: Goal) => ({ goalId: goal.id, revision: goal.revision });

function reply(session: AcpSession, text: string): void {
  session.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
}
