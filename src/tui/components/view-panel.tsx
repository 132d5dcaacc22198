/**
 * The open view above the prompt (opened by a slash command, closed with Esc): one case per
 * view, each drawn by its own component. The chat itself draws nothing here.
 */
import type { TuiView } from '../slash-commands.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiSnapshot, TuiStore } from '../tui-store.js';
import { ResumeView } from './session-picker.js';
import { WorkflowTree } from './workflow-tree.js';

export interface ViewProps {
  snapshot: TuiSnapshot;
  store: TuiStore;
  session: TuiSession;
  width: number;
  /** Back to the chat. */
  close(): void;
}

export function ViewPanel({ view, ...props }: ViewProps & { view: TuiView }) {
  switch (view) {
    case 'chat':
      return null;
    case 'workflows':
      return <WorkflowTree runs={props.snapshot.workflows} now={Date.now()} />;
    case 'sessions':
      return <ResumeView {...props} />;
  }
}
