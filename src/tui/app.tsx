/**
 * The interactive terminal's root component: finished transcript blocks in ink's static region
 * (printed once), then what is still changing (streaming text, running tools, the pending
 * request or the open view), the todo list while it has unfinished items, the running turn's
 * status line, the prompt box and the footer.
 * Keys: Esc interrupts the turn (or closes a view), Ctrl+C clears the input and twice within a
 * second exits, Ctrl+D on an empty prompt exits, Shift+Tab cycles the mode, Ctrl+O opens (and
 * closes) the expanded transcript. While a turn runs, Enter queues the message as a steer and
 * Ctrl+F as a follow-up; `!command` runs a shell command whose output joins the conversation.
 * After the width changes the static region is printed again (see terminal-size.ts). Key
 * handlers read refs, never a drawn frame's state, since several keys may arrive before the
 * next frame.
 */
import { Box, type Instance, render, Static, Text } from 'ink';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { blobStoreKey } from '../core/blob-store.js';
import type { ImageReference } from '../llm/contract.js';
import { agentServers } from '../mcp/agent-servers.js';
import { McpCompleter } from '../mcp/argument-completion.js';
import {
  cachedResourceChoices,
  mentionsServerResource,
  withMentionedResources,
} from '../mcp/resource-mentions.js';
import { PLAN_MODES } from '../plan/contract.js';
import { planModeOf } from '../plan/install.js';
import { BUSY_PLACEHOLDER, IDLE_PLACEHOLDER } from './chrome-text.js';
import { Footer } from './components/footer.js';
import { LiveItems } from './components/live-items.js';
import { PromptInput, type SubmitDelivery } from './components/prompt-input.js';
import { RequestWidget } from './components/request-widget.js';
import { StatusLine } from './components/status-line.js';
import { showsLiveTodos, TodoChecklist } from './components/todo-checklist.js';
import { TranscriptItemView } from './components/transcript-item.js';
import { ViewPanel } from './components/view-panel.js';
import type { TuiView } from './contract.js';
import type { FirstFrame } from './first-frame.js';
import { attachImagesOf, imagePathsIn } from './image-mentions.js';
import { WorkspacePaths } from './path-completion.js';
import { completionAt } from './prompt-completion.js';
import { type EditorState, PromptEditor } from './prompt-editor.js';
import { runShellCommand, shareShellOutput } from './shell-command.js';
import { runSlash, slashCommandsOf } from './slash-commands.js';
import { useTerminalSize, useWidthRedraw } from './terminal-size.js';
import type { TuiSession } from './tui-session.js';
import type { TuiStore } from './tui-store.js';
import { useColumns } from './use-columns.js';
import { useCurrentInput } from './use-current-input.js';

/** Two Ctrl+C within this many milliseconds exit. */
const DOUBLE_PRESS_MS = 1000;
/** Rows kept for the prompt box, the footer and hints; the live transcript items get the rest. */
const CHROME_ROWS = 10;

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
  const [editor] = useState(() => new PromptEditor(history));
  const [, setPathsListed] = useState(0);
  const [paths] = useState(
    () => new WorkspacePaths(session.setup.runtime.cwd, () => setPathsListed((count) => count + 1)),
  );
  // The workspace's custom commands are read once, when the runtime is built; the MCP servers'
  // prompts again after each change notice (catalog-changes.ts lists them), which also draws
  // the `@server:uri` choices again.
  const [slashCommands, setSlashCommands] = useState(() => slashCommandsOf(session));
  const sessionId = snapshot.sessionId;
  useEffect(() => {
    void sessionId;
    setSlashCommands(slashCommandsOf(session));
    return agentServers(session.current.context)?.onCatalogChanged(() =>
      setSlashCommands(slashCommandsOf(session)),
    );
  }, [session, sessionId]);
  const [, setServerAnswers] = useState(0);
  const [serverCompleter] = useState(
    () =>
      new McpCompleter(
        () => session.current.context,
        () => setServerAnswers((count) => count + 1),
      ),
  );
  const shell = useRef<AbortController | undefined>(undefined);
  const [view, setView] = useState<TuiView>('chat');
  const viewRef = useRef<TuiView>('chat');
  const showView = useCallback((next: TuiView) => {
    viewRef.current = next;
    setView(next);
  }, []);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const lastCtrlC = useRef(0);
  const viewEscape = useRef<(() => boolean) | undefined>(undefined);
  const width = Math.max(20, columns - 2);
  const pending = snapshot.pending;
  const { rows } = useTerminalSize();
  const redraws = useWidthRedraw();
  const liveTodos = view === 'chat' && showsLiveTodos(snapshot.todos) ? snapshot.todos : [];
  // The status line and the live checklist take rows of their own.
  const liveRows = rows - CHROME_ROWS - liveTodos.length - (snapshot.activity ? 1 : 0);

  useCurrentInput((text, key) => {
    if (key.ctrl && text === 'c') {
      const now = Date.now();
      if (!editor.isEmpty) {
        editor.clear();
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
    if (key.ctrl && text === 'd' && editor.isEmpty) {
      onExit();
      return;
    }
    if (key.ctrl && text === 'o') {
      showView(viewRef.current === 'transcript' ? 'chat' : 'transcript');
      return;
    }
    if (key.escape) {
      if (shell.current) shell.current.abort();
      else if (viewRef.current !== 'chat') {
        if (!viewEscape.current?.()) showView('chat');
      } else if (session.current.agent.status === 'running') session.interrupt();
      return;
    }
    if (key.tab && key.shift) {
      const plan = planModeOf(session.current);
      if (!plan) return;
      const next = PLAN_MODES[(PLAN_MODES.indexOf(plan.mode) + 1) % PLAN_MODES.length];
      if (next) plan.setMode(next, 'user');
    }
  });

  const submit = (value: string, delivery: SubmitDelivery) => {
    const text = value.trim();
    setHint(undefined);
    if (text.length === 0) return;
    onSubmitHistory(text);
    if (text.startsWith('/')) {
      void runSlash(text, { session, store, setView: showView, exit: onExit });
      return;
    }
    if (text.startsWith('!')) {
      runShell(text.slice(1).trim());
      return;
    }
    const deliver = (message: string, images: ImageReference[]) => {
      if (delivery === 'followup' && session.current.agent.status === 'running') {
        session.followup(message, images);
        store.queue(text, 'followup');
        return;
      }
      if (session.send(message, images) === 'steer') store.queue(text, 'steer');
    };
    // `@shot.png` and pasted image paths attach those images; `@server:uri` that MCP resource.
    const { context } = session.current;
    const workspace = session.setup.runtime.cwd;
    if (imagePathsIn(text, workspace).length === 0 && !mentionsServerResource(context, text)) {
      deliver(text, []);
      return;
    }
    void (async () => {
      const attached = await attachImagesOf(text, workspace, context.find(blobStoreKey));
      for (const problem of attached.problems) {
        store.add({ kind: 'notice', tone: 'warning', text: problem });
      }
      if (attached.images.length > 0) {
        const count = attached.images.length;
        store.add({
          kind: 'notice',
          tone: 'info',
          text: `attached ${count === 1 ? 'an image' : `${count} images`}`,
        });
      }
      const message = mentionsServerResource(context, text)
        ? await withMentionedResources(context, text)
        : text;
      deliver(message, attached.images);
    })();
  };

  const runShell = (command: string) => {
    if (command.length === 0) return;
    if (shell.current) {
      store.add({ kind: 'notice', tone: 'warning', text: 'a shell command is still running' });
      return;
    }
    const controller = new AbortController();
    shell.current = controller;
    setHint(`running ${command} (esc stops it)`);
    const setup = session.setup;
    const passthrough = setup.config.tools?.bash?.env?.passthrough;
    void runShellCommand(command, {
      cwd: setup.runtime.cwd,
      context: session.current.context,
      signal: controller.signal,
      ...(passthrough ? { passthrough } : {}),
    }).then((result) => {
      shell.current = undefined;
      setHint(undefined);
      store.add({ kind: 'shell', command, output: result.output, exitCode: result.exitCode });
      const delivery = shareShellOutput(session.current.agent, result);
      store.add({
        kind: 'notice',
        tone: 'info',
        text:
          delivery === 'steer'
            ? 'the output joins the running turn at its next step'
            : 'the output joins the conversation with your next message',
      });
    });
  };

  const complete = useCallback(
    (state: EditorState) =>
      completionAt(
        state,
        () => paths.current(),
        slashCommands,
        () => cachedResourceChoices(session.current.context),
        (before) => serverCompleter.promptArgument(before),
        (query) => serverCompleter.templateVariable(query),
      ),
    [paths, slashCommands, session, serverCompleter],
  );
  return (
    <>
      {/* Keyed by session and width: after /new, /resume or a resize the history is printed again. */}
      <Static key={`${snapshot.sessionId}-${redraws}`} items={snapshot.finished as never[]}>
        {(item: (typeof snapshot.finished)[number]) => (
          <TranscriptItemView key={item.id} item={item} width={width} />
        )}
      </Static>
      <Box flexDirection="column">
        {view === 'transcript' ? null : (
          <LiveItems items={snapshot.live} width={width} rows={liveRows} />
        )}
        {liveTodos.length > 0 ? (
          <Box marginTop={1}>
            <TodoChecklist todos={liveTodos} />
          </Box>
        ) : null}
        <ViewPanel
          view={view}
          snapshot={snapshot}
          store={store}
          session={session}
          width={width}
          close={() => showView('chat')}
          escapeSlot={viewEscape}
        />
        {pending ? <RequestWidget key={pending.id} request={pending} width={width} /> : null}
        {snapshot.queuedMessages.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: queued messages may repeat a text
          <Text key={index} dimColor>
            {`queued ${message.delivery === 'steer' ? 'steer' : 'follow-up'}: ${message.text.split('\n', 1)[0]}`}
          </Text>
        ))}
        {view === 'chat' ? <StatusLine activity={snapshot.activity} /> : null}
        <PromptInput
          editor={editor}
          onSubmit={submit}
          complete={complete}
          disabled={pending !== undefined || view !== 'chat'}
          placeholder={snapshot.footer.busy ? BUSY_PLACEHOLDER : IDLE_PLACEHOLDER}
        />
        {hint ? <Text color="yellow">{hint}</Text> : null}
        <Footer footer={snapshot.footer} requestOpen={pending !== undefined} />
      </Box>
    </>
  );
}

/** Bracketed paste: the terminal marks a paste, so its line ends never send it. */
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

/**
 * Draws the app on this process's terminal; the caller unmounts it. ink's first frame, written
 * as `render` returns, takes the place of `firstFrame`'s lines, erased in the write just before.
 */
export function renderApp(props: AppProps, firstFrame?: FirstFrame): Instance {
  process.stdout.write(`${firstFrame?.takeOver() ?? ''}${BRACKETED_PASTE_ON}`);
  const instance = render(<App {...props} />, {
    exitOnCtrlC: false,
    patchConsole: false,
    // ink draws at most this often; a key typed right after a frame waits for the next one, so
    // the rate bounds keystroke-to-screen latency (the store already coalesces events to 16 ms).
    maxFps: 120,
    // Terminals known to speak the kitty keyboard protocol report Shift+Enter apart from Enter.
    kittyKeyboard: { mode: 'auto' },
  });
  const restore = () => {
    process.stdout.write(BRACKETED_PASTE_OFF);
  };
  instance.waitUntilExit().then(restore, restore);
  return instance;
}
