/**
 * What a running turn is doing, for the status line of the terminal and of `loom run`: a fold of
 * the session's events (plus whether an approval is open and how many agents run) into plain
 * data, and a pure description of that data at a given time. The time is always passed in (the
 * events' own times, the caller's clock), so tests inject it. Elapsed time stops while the
 * person is asked for an approval. It never reads a clock, a timer or the runtime.
 */
import type { SessionEvent } from '../core/session-events.js';
import { progressText } from '../core/tool-execution.js';
import { formatTokens } from '../workflow/run-events.js';

/** After this long without a token from the model, the line says the model is slow. */
export const MODEL_SILENCE_MS = 30_000;

/** Characters per token when estimating the output streamed so far. */
const CHARACTERS_PER_TOKEN = 4;

/** The spinner's frames; the ticker's count picks one. */
export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

/** What a request of the person's waits for: `waiting for your approval`. */
export type WaitingFor = 'approval' | 'answers' | 'review';

/** A running turn, as plain data (a snapshot never changes). */
export interface TurnActivity {
  startedAt: number;
  /** Time spent waiting for the person before the open request (not elapsed time). */
  pausedMs: number;
  /** When the open request (an approval, questions, a plan review) was asked; absent if none. */
  pausedSince?: number;
  /** What the open request waits for. */
  waitingFor?: WaitingFor;
  /** The latest sign of the model: its request began, a token, a retry. */
  lastModelSignAt: number;
  /** Tokens of the turn's finished requests. */
  tokens: { input: number; output: number };
  /** Characters streamed by the request in flight (estimated as output tokens). */
  streamedCharacters: number;
  /** The model's own calls still running, in call order. */
  runningTools: readonly string[];
  /** Agents running under the session (subagents, workflow children). */
  agents: number;
}

/** What the line shows at one moment. */
export interface ActivityDescription {
  elapsedMs: number;
  tokens: { input: number; output: number };
  doing: string;
}

/** Folds session events into the running turn's activity; `current` is undefined when idle. */
export class ActivityFold {
  private activity: TurnActivity | undefined;
  private readonly calls = new Map<string, string>();
  private open: { since: number; waitingFor: WaitingFor } | undefined;
  private agentCount = 0;

  get current(): TurnActivity | undefined {
    return this.activity;
  }

  apply(event: SessionEvent): void {
    const at = event.time;
    if (event.type === 'turn/start') {
      this.calls.clear();
      this.activity = {
        startedAt: at,
        pausedMs: 0,
        ...(this.open ? { pausedSince: at, waitingFor: this.open.waitingFor } : {}),
        lastModelSignAt: at,
        tokens: { input: 0, output: 0 },
        streamedCharacters: 0,
        runningTools: [],
        agents: this.agentCount,
      };
      return;
    }
    const activity = this.activity;
    if (!activity) return;
    switch (event.type) {
      case 'turn/end':
        this.activity = undefined;
        this.calls.clear();
        return;
      case 'step/start':
      case 'model/retry':
        this.update({ lastModelSignAt: at, streamedCharacters: 0 });
        return;
      case 'assistant/chunk': {
        const data = event.data as SessionEvent<'assistant/chunk'>['data'];
        this.update({
          lastModelSignAt: at,
          streamedCharacters: activity.streamedCharacters + data.text.length,
        });
        return;
      }
      case 'assistant/message':
      case 'model/side-request': {
        // A summary's tokens are the turn's too, as its turn/end will count them.
        const { usage } = event.data as SessionEvent<'model/side-request'>['data'];
        this.update({
          lastModelSignAt: at,
          streamedCharacters: 0,
          tokens: {
            input: activity.tokens.input + usage.input,
            output: activity.tokens.output + usage.output,
          },
        });
        return;
      }
      case 'tool/call': {
        const data = event.data as SessionEvent<'tool/call'>['data'];
        if (data.parentCallId !== undefined) return;
        this.calls.set(data.callId, data.name);
        this.update({ runningTools: [...this.calls.values()] });
        return;
      }
      case 'tool/progress': {
        const data = event.data as SessionEvent<'tool/progress'>['data'];
        if (!this.calls.has(data.callId)) return;
        this.calls.set(data.callId, `${data.name} (${progressText(data)})`);
        this.update({ runningTools: [...this.calls.values()] });
        return;
      }
      case 'tool/result': {
        const data = event.data as SessionEvent<'tool/result'>['data'];
        if (!this.calls.delete(data.callId)) return;
        // The next request starts as the last result is in: the model's silence counts from here.
        this.update({ runningTools: [...this.calls.values()], lastModelSignAt: at });
        return;
      }
      default:
        return;
    }
  }

  /**
   * The person was asked (`waitingFor`) or the request was answered (undefined), at `now`;
   * elapsed time stops while a request is open.
   */
  waiting(waitingFor: WaitingFor | undefined, now: number): void {
    if (waitingFor === this.open?.waitingFor) return;
    const wasOpen = this.open !== undefined;
    this.open = waitingFor ? { since: this.open?.since ?? now, waitingFor } : undefined;
    const activity = this.activity;
    if (!activity) return;
    if (waitingFor) {
      this.update({ pausedSince: activity.pausedSince ?? now, waitingFor });
      return;
    }
    if (!wasOpen) return;
    const { pausedSince, waitingFor: _answered, ...rest } = activity;
    this.activity = {
      ...rest,
      pausedMs: activity.pausedMs + (pausedSince === undefined ? 0 : now - pausedSince),
    };
  }

  /** How many agents run under the session now. */
  agents(count: number): void {
    this.agentCount = count;
    if (this.activity && this.activity.agents !== count) this.update({ agents: count });
  }

  private update(change: Partial<TurnActivity>): void {
    if (this.activity) this.activity = { ...this.activity, ...change };
  }
}

/** The activity at `now`: elapsed time without approval waits, tokens so far, what happens. */
export function describeActivity(activity: TurnActivity, now: number): ActivityDescription {
  const openPause = activity.pausedSince === undefined ? 0 : now - activity.pausedSince;
  const elapsedMs = Math.max(0, now - activity.startedAt - activity.pausedMs - openPause);
  const tokens = {
    input: activity.tokens.input,
    output: activity.tokens.output + Math.ceil(activity.streamedCharacters / CHARACTERS_PER_TOKEN),
  };
  return { elapsedMs, tokens, doing: doingOf(activity, now) };
}

function doingOf(activity: TurnActivity, now: number): string {
  if (activity.waitingFor !== undefined) return `waiting for your ${activity.waitingFor}`;
  const agents =
    activity.agents > 0
      ? ` · ${activity.agents} agent${activity.agents === 1 ? '' : 's'} running`
      : '';
  const [first, ...others] = activity.runningTools;
  if (first !== undefined) {
    const more = others.length === 0 ? '' : ` and ${others.length} more`;
    return `running ${first}${more}${agents}`;
  }
  const silence = now - activity.lastModelSignAt;
  if (silence >= MODEL_SILENCE_MS) {
    return `waiting for the model (${Math.floor(silence / 1000)} s)${agents}`;
  }
  return `${activity.streamedCharacters > 0 ? 'writing' : 'thinking'}${agents}`;
}

/** Whole seconds while under a minute (`7s`), then minutes and seconds (`2m05s`). */
export function formatElapsedSeconds(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** The status line's text: `⠹ 12s · 1.2k↑ 340↓ · running bash · esc to interrupt`. */
export function activityLine(
  description: ActivityDescription,
  tick: number,
  interruptKey = 'esc',
): string {
  const spinner = SPINNER_FRAMES[tick % SPINNER_FRAMES.length];
  const { input, output } = description.tokens;
  return [
    `${spinner} ${formatElapsedSeconds(description.elapsedMs)}`,
    `${formatTokens(input)}↑ ${formatTokens(output)}↓`,
    description.doing,
    `${interruptKey} to interrupt`,
  ].join(' · ');
}
