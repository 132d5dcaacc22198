/**
 * `loom goal show|pause|clear|resume --session ID` (SPEC §5). `show` folds the session file as
 * it is on disk, without the writer lock, so it works while another process drives the goal.
 * `pause`, `clear` and `resume` take the lock (SESSION_BUSY names the holder) and act as the
 * human at the goal's current revision; `resume` then arms the goal and runs its rounds here.
 */
import { existsSync } from 'node:fs';
import { UserError } from '../base/errors.js';
import { loomHome } from '../core/home.js';
import { loadSessionFile } from '../core/session-load.js';
import { SessionStore } from '../core/session-store.js';
import { type Goal, GoalError } from '../goal/contract.js';
import { foldGoal, type GoalHistoryEntry } from '../goal/fold.js';
import { GoalService } from '../goal/goal-service.js';
import { buildRuntime } from './build-runtime.js';
import { withErrorCode } from './goal-output.js';
import { parseMaxRounds, runSession } from './run-command.js';
import { runWorkspace } from './session-workspace.js';

export interface GoalShowOptions {
  session: string;
  json?: boolean;
}

export interface GoalChangeOptions {
  session: string;
}

export interface GoalResumeOptions {
  session: string;
  maxRounds?: string;
  model?: string;
  json?: boolean;
  /** The session's workspace, when running from another folder. */
  cwd?: string;
}

function sessionPath(store: SessionStore, sessionId: string): string {
  const path = store.pathOf(sessionId);
  if (!existsSync(path)) {
    throw new UserError('SESSION_NOT_FOUND', `no session ${sessionId} in ${store.directory}`);
  }
  return path;
}

const isoTime = (time: number) => new Date(time).toISOString();

function goalJson(goal: Goal): Record<string, unknown> {
  return { ...goal };
}

function describeEntry(entry: GoalHistoryEntry): string {
  if (entry.kind === 'round') return `${isoTime(entry.time)}  round ${entry.round}`;
  const phase = entry.action === 'clear' ? 'cleared' : entry.phase;
  const objective = entry.objective !== undefined ? ` objective: ${entry.objective}` : '';
  const reason = entry.reason !== undefined ? `: ${entry.reason}` : '';
  return `${isoTime(entry.time)}  ${entry.action} by ${entry.by} → ${phase} (revision ${entry.revision})${objective}${reason}`;
}

/** `loom goal show`: the goal and its history, read without the session lock. */
export function goalShowCommand(options: GoalShowOptions): number {
  try {
    const store = new SessionStore(loomHome());
    const { header, events } = loadSessionFile(sessionPath(store, options.session));
    const fold = foldGoal(events);
    const goal = fold.goal;
    const history = fold.history;
    if (goal === null && history.length === 0) {
      throw new GoalError('GOAL_NOT_FOUND', `session ${header.sessionId} has no goal`);
    }
    if (options.json) {
      const record = {
        sessionId: header.sessionId,
        goal: goal === null ? null : goalJson(goal),
        history: history.map((entry) => ({ ...entry })),
      };
      process.stdout.write(`${JSON.stringify(record)}\n`);
      return 0;
    }
    const lines = [`session ${header.sessionId}`];
    if (goal === null) {
      lines.push('no goal: the last one was cleared');
    } else {
      lines.push(`goal ${goal.id}: ${goal.objective}`);
      lines.push(
        `phase ${goal.phase}, revision ${goal.revision}, rounds ${goal.roundsStarted} of ${goal.maxRounds}`,
      );
      if (goal.reason !== undefined) lines.push(`reason: ${goal.reason}`);
    }
    lines.push('history:');
    for (const entry of history) lines.push(`  ${describeEntry(entry)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    throw withErrorCode(error);
  }
}

/** `loom goal pause|clear`: the change, made by the human at the current revision. */
export function goalChangeCommand(action: 'pause' | 'clear', options: GoalChangeOptions): number {
  try {
    const log = new SessionStore(loomHome()).open(options.session);
    const service = new GoalService({ log });
    try {
      const goal = service.goal;
      if (goal === null) {
        throw new GoalError(
          'GOAL_NOT_FOUND',
          `session ${options.session} has no goal to ${action}`,
        );
      }
      const after = service.update(
        { goalId: goal.id, revision: goal.revision },
        {
          action,
          reason: `${action === 'pause' ? 'paused' : 'cleared'} by the user (loom goal ${action})`,
        },
        'human',
      );
      log.flush();
      process.stdout.write(
        after === null
          ? `goal ${goal.id} cleared\n`
          : `goal ${after.id} ${after.phase} (revision ${after.revision}); to go on: loom goal resume --session ${options.session}\n`,
      );
      return 0;
    } finally {
      service.dispose();
      log.close();
    }
  } catch (error) {
    throw withErrorCode(error);
  }
}

/** `loom goal resume`: resume (when paused or blocked), arm, and run rounds until it settles. */
export async function goalResumeCommand(options: GoalResumeOptions): Promise<number> {
  try {
    const maxRounds = parseMaxRounds(options.maxRounds);
    const home = loomHome();
    const store = new SessionStore(home);
    // Checked on the file first, so a goal that cannot resume fails without needing a model;
    // checked again under the lock before anything changes.
    const { events } = loadSessionFile(sessionPath(store, options.session));
    checkResumable(foldGoal(events).goal, options.session, maxRounds);
    const setup = buildRuntime({
      cwd: runWorkspace(
        { session: options.session, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}) },
        home,
      ),
      home,
      ...(options.model ? { model: options.model } : {}),
    });
    const handle = setup.runtime.resume(options.session);
    return await runSession(setup, handle, {
      ...(options.json ? { json: true } : {}),
      startGoal: (service) => resumeGoal(service, options.session, maxRounds),
    });
  } catch (error) {
    throw withErrorCode(error);
  }
}

function resumeGoal(service: GoalService, sessionId: string, maxRounds: number | undefined) {
  const goal = checkResumable(service.goal, sessionId, maxRounds);
  return service.update(
    { goalId: goal.id, revision: goal.revision },
    { action: 'resume', ...(maxRounds !== undefined ? { maxRounds } : {}) },
    'human',
  );
}

function checkResumable(goal: Goal | null, sessionId: string, maxRounds: number | undefined): Goal {
  if (goal === null) {
    throw new GoalError('GOAL_NOT_FOUND', `session ${sessionId} has no goal to resume`);
  }
  if (goal.phase === 'complete') {
    throw new GoalError(
      'GOAL_PHASE',
      `goal ${goal.id} of session ${sessionId} is already complete; nothing to resume`,
    );
  }
  const cap = maxRounds ?? goal.maxRounds;
  if (cap <= goal.roundsStarted) {
    throw new GoalError(
      'GOAL_ROUND_CAP',
      `goal ${goal.id} has started ${goal.roundsStarted} of its ${goal.maxRounds} rounds; pass --max-rounds N with a total above ${goal.roundsStarted}`,
    );
  }
  return goal;
}
