/**
 * The interactive terminal's data: what the transcript shows, what a pending request (an
 * approval, questions, a plan review) asks, and what the footer counts. Plain data shared by the
 * store (which folds session events into it) and the ink components (which only draw it); no
 * module here renders or touches the runtime.
 */
import type { Question, QuestionAnswer } from '../interaction/user-questions.js';

/** What the area above the prompt shows; Esc returns to the chat. */
export type TuiView =
  | 'chat'
  | 'workflows'
  | 'agents'
  | 'jobs'
  | 'transcript'
  | 'sessions'
  | 'rewind';

export type ToolStatus = 'running' | 'done' | 'failed' | 'denied' | 'cancelled';

export interface ToolLineState {
  callId: string;
  name: string;
  arguments: unknown;
  status: ToolStatus;
  /** The result's text once it ended (the view shortens and folds it). */
  result?: string;
  /** Calls made inside this one (a `run_code` program's), in call order. */
  children?: ToolLineState[];
  /** A running call whose permission the person has yet to give (set by the store). */
  awaitingApproval?: true;
}

/** One block of the transcript. Finished items never change again (ink's static region). */
export type TranscriptItem =
  | { kind: 'user'; id: string; text: string; queued?: 'steer' | 'followup' }
  | { kind: 'assistant'; id: string; text: string }
  | { kind: 'reasoning'; id: string; text: string }
  | { kind: 'tool'; id: string; tool: ToolLineState }
  | { kind: 'shell'; id: string; command: string; output: string; exitCode: number | null }
  | { kind: 'notice'; id: string; tone: 'info' | 'warning' | 'error'; text: string }
  /**
   * One dim line about the context (a warning as it fills, a compaction) or a hook's run;
   * `detail` is a summary's text, folded under the line until the transcript view expands it.
   */
  | { kind: 'context'; id: string; text: string; detail?: string };

export type TranscriptItemKind = TranscriptItem['kind'];

/** How a permission request was answered; `always` adds a rule for the rest of the session. */
export type ApprovalAnswer =
  | { decision: 'once' }
  | { decision: 'always' }
  | { decision: 'no'; reason?: string };

/** What the human is asked now; the UI answers it through `resolve` exactly once. */
export type PendingRequest =
  | {
      kind: 'approval';
      id: string;
      /** The call asking, so its tool line can say it waits. */
      callId: string;
      /** Who asks, when not the session's own agent (a subagent, a workflow child). */
      from?: string;
      tool: string;
      arguments: unknown;
      reason: string;
      resolve(answer: ApprovalAnswer): void;
    }
  | {
      kind: 'questions';
      id: string;
      questions: Question[];
      resolve(answers: QuestionAnswer[]): void;
    }
  | {
      kind: 'plan-review';
      id: string;
      plan: string;
      resolve(review: { approved: boolean; feedback?: string }): void;
    };

export interface FooterState {
  model: string;
  workspace: string;
  /** Input tokens of the latest model request, against the model's window when known. */
  contextTokens: number;
  contextWindow?: number;
  tokens: { input: number; output: number };
  /** Cost in US dollars from configured prices; absent without prices. */
  costUsd?: number;
  runningChildren: number;
  runningJobs: number;
  runningWorkflows: number;
  /** `round/maxRounds` of the goal, with its phase; `armed` while this process runs its rounds. */
  goal?: { round: number; maxRounds: number; phase: string; armed: boolean };
  mode: 'default' | 'plan';
  /** The turn is running. */
  busy: boolean;
  /** Messages typed while busy, waiting for the next step (steer) or the turn's end (followup). */
  queued: number;
}
