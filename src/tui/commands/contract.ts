/**
 * What a slash command is (a name, a one-line description for `/help` and completion, an action)
 * and what its action is given: the terminal's session, store and view. Types only, shared by the
 * command list (slash-commands.ts) and the commands in this folder; never imports either.
 */
import type { TuiView } from '../contract.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiStore } from '../tui-store.js';

export interface SlashContext {
  session: TuiSession;
  store: TuiStore;
  setView(view: TuiView): void;
  exit(): void;
}

export interface SlashCommand {
  name: string;
  /** Shown after the name in `/help`, such as `[SPEC]`. */
  usage?: string;
  description: string;
  run(args: string, context: SlashContext): void | Promise<void>;
}
