/**
 * The interactive terminal's root component: finished transcript blocks in ink's static region
 * (printed once), then what is still changing (streaming text, running tools, the pending
 * request or the open view), the prompt box and the footer. Keys: Esc interrupts the turn (or
 * closes a view), Ctrl+C clears the input and twice within a second exits, Ctrl+D on an empty
 * prompt exits, Shift+Tab cycles the mode.
 */
import { Box, type Instance, render, Static, Text } from 'ink';
import { useRef, useState, useSyncExternalStore } from 'react';
import { PLAN_MODES } from '../plan/contract.js';
import { planModeOf } from '../plan/install.js';
import { Footer } from './components/footer.js';
import { PromptInput } from './components/prompt-input.js';
import { RequestWidget } from './components/request-widget.js';
import { TranscriptItemView } from './components/transcript-item.js';
import { ViewPanel } from './components/view-panel.js';
import { completeSlash, runSlash, type TuiView } from './slash-commands.js';
import type { TuiSession } from './tui-session.js';
import type { TuiStore } from './tui-store.js';
import { useColumns } from './use-columns.js';
import { useInput } from './use-input.js';

/** Two Ctrl+C within this many milliseconds exit. */
const DOUBLE_PRESS_MS = 1000;

export interface AppProps {
  store: TuiStore;
  session: TuiSession;
  history: string[];
  onSubmitHistory(text: string): void;
  onExit(): void;
}

export function App({ store, session, history, onSubmitHistory, onExit }: AppProps) {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const columns = useColumns();
  const [input, setInput] = useState('');
  const [view, setView] = useState<TuiView>('chat');
  const [hint, setHint] = useState<string | undefined>(undefined);
  const lastCtrlC = useRef(0);
  const width = Math.max(20, columns - 2);
  const pending = snapshot.pending;

  useInput((text, key) => {
    if (key.ctrl && text === 'c') {
      const now = Date.now();
      if (input.length > 0) {
        setInput('');
        lastCtrlC.current = now;
        return;
      }
      if (now - lastCtrlC.current < DOUBLE_PRESS_MS) {
        onExit();
        return;
      }
      lastCtrlC.current = now;
      setHint('press ctrl+c again to exit');
      return;
    }
    if (key.ctrl && text === 'd' && input.length === 0) {
      onExit();
      return;
    }
    if (key.escape) {
      if (view !== 'chat') setView('chat');
      else if (snapshot.footer.busy) session.interrupt();
      return;
    }
    if (key.tab && key.shift) {
      const plan = planModeOf(session.current);
      if (!plan) return;
      const next = PLAN_MODES[(PLAN_MODES.indexOf(plan.mode) + 1) % PLAN_MODES.length];
      if (next) plan.setMode(next, 'user');
    }
  });

  const submit = (value: string) => {
    const text = value.trim();
    setInput('');
    setHint(undefined);
    if (text.length === 0) return;
    onSubmitHistory(text);
    if (text.startsWith('/')) {
      void runSlash(text, { session, store, setView, exit: onExit });
      return;
    }
    session.send(text);
  };

  const completions = completeSlash(input);
  return (
    <>
      <Static items={snapshot.finished as never[]}>
        {(item: (typeof snapshot.finished)[number]) => (
          <TranscriptItemView key={item.id} item={item} width={width} />
        )}
      </Static>
      <Box flexDirection="column">
        {snapshot.live.map((item) => (
          <TranscriptItemView key={item.id} item={item} width={width} />
        ))}
        <ViewPanel
          view={view}
          snapshot={snapshot}
          store={store}
          session={session}
          width={width}
          close={() => setView('chat')}
        />
        {pending ? <RequestWidget key={pending.id} request={pending} width={width} /> : null}
        <PromptInput
          value={input}
          onChange={setInput}
          onSubmit={submit}
          history={history}
          disabled={pending !== undefined}
          placeholder={snapshot.footer.busy ? 'working… type to steer' : 'ask loom, / for commands'}
        />
        {completions.length > 0 && input.length > 0 ? (
          <Box flexDirection="column">
            {completions.map((command) => (
              <Text key={command.name} dimColor>{`/${command.name} — ${command.description}`}</Text>
            ))}
          </Box>
        ) : null}
        {hint ? <Text color="yellow">{hint}</Text> : null}
        <Footer footer={snapshot.footer} />
      </Box>
    </>
  );
}

/** Draws the app on this process's terminal; the caller unmounts it. */
export function renderApp(props: AppProps): Instance {
  return render(<App {...props} />, { exitOnCtrlC: false, patchConsole: false });
}
