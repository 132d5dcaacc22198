/**
 * Where the agent reaches the person at the terminal: permission asks and user questions become
 * pending requests, shown one at a time, oldest first. "Yes, always" adds an allow rule for the
 * rest of this session (the same tool, and for `bash` the same command), which the asker
 * consults before asking again. A request whose turn is cancelled leaves the queue at once.
 */
import {
  compileRules,
  matchesRule,
  SHELL_COMMAND_ARGUMENT,
  SHELL_TOOL,
} from '../config/permissions.js';
import type { PermissionRule } from '../config/schema.js';
import type { PermissionAnswer, PermissionAsker } from '../core/tool-execution.js';
import type { UserAnswerer, UserReply } from '../interaction/user-questions.js';
import type { PendingRequest } from './contract.js';

type Listener = () => void;

export class InteractionBroker {
  private readonly queue: PendingRequest[] = [];
  private readonly sessionRules: PermissionRule[] = [];
  private readonly listeners = new Set<Listener>();
  private sequence = 0;

  /** The request the person answers now. */
  get current(): PendingRequest | undefined {
    return this.queue[0];
  }

  /** The allow rules "yes, always" added, oldest first. */
  get rules(): readonly PermissionRule[] {
    return this.sessionRules;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  readonly asker: PermissionAsker = {
    ask: ({ call, reason, signal }) => {
      const compiled = compileRules(this.sessionRules);
      if (compiled.some((rule) => matchesRule(rule, call.name, call.arguments))) {
        return Promise.resolve(true);
      }
      return new Promise<PermissionAnswer>((resolve, reject) => {
        const request: PendingRequest = {
          kind: 'approval',
          id: `ask-${++this.sequence}`,
          tool: call.name,
          arguments: call.arguments,
          reason,
          resolve: (answer) => {
            if (!this.remove(request)) return;
            if (answer.decision === 'always')
              this.sessionRules.push(ruleFor(call.name, call.arguments));
            if (answer.decision === 'no')
              resolve({ approved: false, feedback: answer.reason ?? '' });
            else resolve(true);
          },
        };
        this.enqueue(request, signal, reject);
      });
    },
  };

  readonly answerer: UserAnswerer = {
    answer: (request, options) =>
      new Promise<UserReply>((resolve, reject) => {
        const id = `question-${++this.sequence}`;
        const pending: PendingRequest =
          request.intent === 'questions'
            ? {
                kind: 'questions',
                id,
                questions: request.questions,
                resolve: (answers) => {
                  if (this.remove(pending)) resolve({ intent: 'questions', answers });
                },
              }
            : {
                kind: 'plan-review',
                id,
                plan: request.plan,
                resolve: (review) => {
                  if (this.remove(pending)) resolve({ intent: 'plan-review', ...review });
                },
              };
        this.enqueue(pending, options.signal, reject);
      }),
  };

  private enqueue(
    request: PendingRequest,
    signal: AbortSignal | undefined,
    reject: (reason: unknown) => void,
  ): void {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    signal?.addEventListener(
      'abort',
      () => {
        if (this.remove(request)) reject(signal.reason);
      },
      { once: true },
    );
    this.queue.push(request);
    this.changed();
  }

  private remove(request: PendingRequest): boolean {
    const index = this.queue.indexOf(request);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    this.changed();
    return true;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The rule "yes, always" adds: this tool, and for a shell command this exact command. */
function ruleFor(tool: string, args: unknown): PermissionRule {
  const command = (args as Record<string, unknown> | undefined)?.[SHELL_COMMAND_ARGUMENT];
  if (tool === SHELL_TOOL && typeof command === 'string') {
    return { tool, action: 'allow', match: { [SHELL_COMMAND_ARGUMENT]: command } };
  }
  return { tool, action: 'allow' };
}
