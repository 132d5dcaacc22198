/**
 * The open view above the prompt (opened by a slash command, closed with Esc): one case per
 * view, each drawn by its own component. The chat itself draws nothing here.
 */
import { type AgentTypes, agentTypesKey } from '../../project/agent-types-contract.js';
import type { TuiView } from '../contract.js';
import type { TuiSession } from '../tui-session.js';
import type { TuiSnapshot, TuiStore } from '../tui-store.js';
import { AgentsView } from './agents-view.js';
import { JobsView } from './jobs-view.js';
import { RewindView } from './rewind-view.js';
import { ResumeView } from './session-picker.js';
import { TranscriptView } from './transcript-view.js';
import type { EscapeSlot } from './view-keys.js';
import { WorkflowsView } from './workflows-view.js';

export interface ViewProps {
  snapshot: TuiSnapshot;
  store: TuiStore;
  session: TuiSession;
  width: number;
  /** Back to the chat. */
  close(): void;
  /** A view showing a nested pane claims Esc here to go back one level. */
  escapeSlot?: EscapeSlot;
}

export function ViewPanel({ view, ...props }: ViewProps & { view: TuiView }) {
  switch (view) {
    case 'chat':
      return null;
    case 'workflows':
      return (
        <WorkflowsView
          runs={props.snapshot.workflows}
          runtime={props.session.setup.runtime}
          width={props.width}
          {...(props.escapeSlot ? { escapeSlot: props.escapeSlot } : {})}
          keysActive={props.snapshot.pending === undefined}
        />
      );
    case 'agents':
      return (
        <AgentsView
          sessionId={props.snapshot.sessionId}
          registry={props.session.setup.subagents.services.children}
          runtime={props.session.setup.runtime}
          {...agentTypesOf(props.session)}
          width={props.width}
          {...(props.escapeSlot ? { escapeSlot: props.escapeSlot } : {})}
          keysActive={props.snapshot.pending === undefined}
        />
      );
    case 'jobs':
      return (
        <JobsView
          sessionId={props.snapshot.sessionId}
          jobs={props.session.setup.jobs.service}
          width={props.width}
          {...(props.escapeSlot ? { escapeSlot: props.escapeSlot } : {})}
          keysActive={props.snapshot.pending === undefined}
        />
      );
    case 'transcript':
      return (
        <TranscriptView
          items={[...props.snapshot.finished, ...props.snapshot.live]}
          width={props.width}
        />
      );
    case 'sessions':
      return <ResumeView {...props} />;
    case 'rewind':
      return (
        <RewindView
          session={props.session}
          store={props.store}
          width={props.width}
          close={props.close}
          {...(props.escapeSlot ? { escapeSlot: props.escapeSlot } : {})}
          keysActive={props.snapshot.pending === undefined}
        />
      );
  }
}

function agentTypesOf(session: TuiSession): { agentTypes?: AgentTypes } {
  const agentTypes = session.setup.runtime.root.find(agentTypesKey);
  return agentTypes ? { agentTypes } : {};
}
