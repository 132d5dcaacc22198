/**
 * The prompt's text being edited, outside React so every key reads the latest state however fast
 * keys arrive: the text, the cursor, large pastes kept whole (one placeholder character each in
 * the text, shown folded, expanded when sent), the completion menu's selection and the walk
 * through the workspace's history. It never runs or sends anything; the prompt box does that.
 */

/** A paste with at least this many lines is folded to `[pasted N lines]` until sent. */
export const FOLD_PASTE_LINES = 4;
/** A paste with at least this many characters is folded too. */
export const FOLD_PASTE_CHARACTERS = 1000;

/** Paste `index` sits in the text as this private-use character. */
const PASTE_BASE = 0xe000;
const PASTE_LIMIT = 0xf8ff;
const PRIVATE_USE = /[\ue000-\uf8ff]/g;
/** Control characters other than tab and line feed, which text never keeps. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

export interface EditorState {
  text: string;
  /** Between 0 and `text.length`, never inside a surrogate pair. */
  cursor: number;
  /** Folded pastes, by index; the text holds a placeholder for each one still present. */
  pastes: readonly string[];
}

export type DisplaySegment =
  | { kind: 'text'; text: string }
  | { kind: 'paste'; text: string }
  | { kind: 'cursor'; text: string };

export const EMPTY_EDITOR: EditorState = { text: '', cursor: 0, pastes: [] };

/** Typed or pasted text with line ends made `\n`, control and placeholder characters taken out. */
export function normalizeInput(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL, '').replace(PRIVATE_USE, '');
}

/**
 * Several characters read at once (fast typing, a held key, a paste without brackets): one with
 * a line end or a large one is a paste; otherwise each character is typed, DEL and BS deleting.
 */
export function typeChunk(state: EditorState, chunk: string): EditorState {
  if (/[\r\n]/.test(chunk) || chunk.length >= FOLD_PASTE_CHARACTERS)
    return insertPaste(state, chunk);
  let next = state;
  for (const character of chunk) {
    next =
      character === '\x7f' || character === '\b'
        ? deleteBackward(next)
        : insertText(next, character);
  }
  return next;
}

export function insertText(state: EditorState, typed: string): EditorState {
  const text = normalizeInput(typed);
  if (text === '') return state;
  return {
    ...state,
    text: state.text.slice(0, state.cursor) + text + state.text.slice(state.cursor),
    cursor: state.cursor + text.length,
  };
}

/** A large paste is kept whole behind one placeholder; a small one is inserted as typed text. */
export function insertPaste(state: EditorState, pasted: string): EditorState {
  const text = normalizeInput(pasted);
  const lines = text.replace(/\n$/, '').split('\n').length;
  const index = state.pastes.length;
  const large = lines >= FOLD_PASTE_LINES || text.length >= FOLD_PASTE_CHARACTERS;
  if (!large || PASTE_BASE + index > PASTE_LIMIT) return insertText(state, text);
  const marker = String.fromCharCode(PASTE_BASE + index);
  return {
    text: state.text.slice(0, state.cursor) + marker + state.text.slice(state.cursor),
    cursor: state.cursor + 1,
    pastes: [...state.pastes, text],
  };
}

/** The message as sent: every placeholder replaced by its paste. */
export function expandedText(state: EditorState): string {
  return state.text.replace(PRIVATE_USE, (marker) => state.pastes[pasteIndex(marker)] ?? '');
}

/** How a folded paste is shown. */
export function pasteLabel(content: string): string {
  const lines = content.replace(/\n$/, '').split('\n').length;
  return lines > 1 ? `[pasted ${lines} lines]` : `[pasted ${content.length} characters]`;
}

export function deleteBackward(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  const start = previousBoundary(state.text, state.cursor);
  return {
    ...state,
    text: state.text.slice(0, start) + state.text.slice(state.cursor),
    cursor: start,
  };
}

export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const end = nextBoundary(state.text, state.cursor);
  return { ...state, text: state.text.slice(0, state.cursor) + state.text.slice(end) };
}

/** The text from `from` to the cursor removed; the cursor where it began. */
function removeBeforeCursor(state: EditorState, from: number): EditorState {
  return {
    ...state,
    text: state.text.slice(0, from) + state.text.slice(state.cursor),
    cursor: from,
  };
}

/** Ctrl+W: the word (and the spaces after it) before the cursor. */
export function deleteWordBackward(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor);
  const start = before.replace(/\S*\s*$/, '').length;
  const from = start === state.cursor ? Math.max(0, state.cursor - 1) : start;
  return removeBeforeCursor(state, from);
}

/** Ctrl+U: from the start of the cursor's line to the cursor. */
export function deleteToLineStart(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  const from = start === state.cursor ? Math.max(0, start - 1) : start;
  return removeBeforeCursor(state, from);
}

/** Ctrl+K: from the cursor to the end of its line. */
export function deleteToLineEnd(state: EditorState): EditorState {
  const end = lineEnd(state.text, state.cursor);
  const to = end === state.cursor ? Math.min(state.text.length, end + 1) : end;
  return { ...state, text: state.text.slice(0, state.cursor) + state.text.slice(to) };
}

export function moveLeft(state: EditorState): EditorState {
  return { ...state, cursor: previousBoundary(state.text, state.cursor) };
}

export function moveRight(state: EditorState): EditorState {
  return { ...state, cursor: nextBoundary(state.text, state.cursor) };
}

export function moveLineStart(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) };
}

export function moveLineEnd(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) };
}

/** The cursor one line up at the same column (or the line's end); undefined on the first line. */
export function moveLineUp(state: EditorState): EditorState | undefined {
  const start = lineStart(state.text, state.cursor);
  if (start === 0) return undefined;
  const column = state.cursor - start;
  const previousStart = lineStart(state.text, start - 1);
  return { ...state, cursor: Math.min(previousStart + column, start - 1) };
}

/** The cursor one line down at the same column (or the line's end); undefined on the last line. */
export function moveLineDown(state: EditorState): EditorState | undefined {
  const end = lineEnd(state.text, state.cursor);
  if (end >= state.text.length) return undefined;
  const column = state.cursor - lineStart(state.text, state.cursor);
  const nextStart = end + 1;
  return { ...state, cursor: Math.min(nextStart + column, lineEnd(state.text, nextStart)) };
}

/** Replaces `[start, end)` with `replacement` and puts the cursor after it. */
export function replaceRange(
  state: EditorState,
  start: number,
  end: number,
  replacement: string,
): EditorState {
  return {
    ...state,
    text: state.text.slice(0, start) + replacement + state.text.slice(end),
    cursor: start + replacement.length,
  };
}

/** A whole entry (from history) with the cursor at its end. */
export function editorWith(text: string): EditorState {
  const clean = normalizeInput(text);
  return { text: clean, cursor: clean.length, pastes: [] };
}

/** The lines to draw, placeholders shown as their labels and the cursor as its own segment. */
export function displayLines(state: EditorState, showCursor = true): DisplaySegment[][] {
  const lines: DisplaySegment[][] = [[]];
  let plain = '';
  const flush = () => {
    if (plain !== '')
      (lines[lines.length - 1] as DisplaySegment[]).push({ kind: 'text', text: plain });
    plain = '';
  };
  const characters = Array.from(state.text);
  let offset = 0;
  for (const character of characters) {
    const atCursor = showCursor && offset === state.cursor;
    offset += character.length;
    if (character === '\n') {
      flush();
      if (atCursor)
        (lines[lines.length - 1] as DisplaySegment[]).push({ kind: 'cursor', text: ' ' });
      lines.push([]);
      continue;
    }
    const isPaste = /[\ue000-\uf8ff]/.test(character);
    if (!atCursor && !isPaste) {
      plain += character;
      continue;
    }
    flush();
    const line = lines[lines.length - 1] as DisplaySegment[];
    if (isPaste) {
      const label = pasteLabel(state.pastes[pasteIndex(character)] ?? '');
      if (atCursor) line.push({ kind: 'cursor', text: label.slice(0, 1) });
      line.push({ kind: 'paste', text: atCursor ? label.slice(1) : label });
    } else {
      line.push({ kind: 'cursor', text: character });
    }
  }
  flush();
  if (showCursor && state.cursor >= state.text.length) {
    (lines[lines.length - 1] as DisplaySegment[]).push({ kind: 'cursor', text: ' ' });
  }
  return lines;
}

function pasteIndex(marker: string): number {
  return marker.charCodeAt(0) - PASTE_BASE;
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor);
  return end === -1 ? text.length : end;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function previousBoundary(text: string, cursor: number): number {
  if (cursor <= 0) return 0;
  return cursor >= 2 && isLowSurrogate(text.charCodeAt(cursor - 1)) ? cursor - 2 : cursor - 1;
}

function nextBoundary(text: string, cursor: number): number {
  if (cursor >= text.length) return text.length;
  return isLowSurrogate(text.charCodeAt(cursor + 1)) ? cursor + 2 : cursor + 1;
}

/**
 * The editor the prompt box drives: the state, the completion menu's selection and the history
 * walk. Listeners hear every change; `getSnapshot` is stable between changes.
 */
export class PromptEditor {
  private current: EditorState = EMPTY_EDITOR;
  private selected = 0;
  private historyIndex: number | undefined;
  private draft: EditorState = EMPTY_EDITOR;
  private readonly listeners = new Set<() => void>();
  private snapshot: { state: EditorState; selected: number };

  /** `history` is read live (oldest first), so entries the owner appends are reachable. */
  constructor(private readonly history: readonly string[] = []) {
    this.snapshot = { state: this.current, selected: this.selected };
  }

  get state(): EditorState {
    return this.current;
  }

  /** The completion menu's highlighted row. */
  get selection(): number {
    return this.selected;
  }

  get isEmpty(): boolean {
    return this.current.text === '';
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): { state: EditorState; selected: number } => this.snapshot;

  /** Applies an edit; a change of text resets the menu's selection. */
  update(edit: (state: EditorState) => EditorState): void {
    const next = edit(this.current);
    if (next === this.current) return;
    if (next.text !== this.current.text) this.selected = 0;
    this.current = next;
    this.changed();
  }

  select(index: number): void {
    if (index === this.selected) return;
    this.selected = index;
    this.changed();
  }

  /** Empties the prompt and ends any history walk. */
  clear(): void {
    this.historyIndex = undefined;
    this.draft = EMPTY_EDITOR;
    this.selected = 0;
    this.current = EMPTY_EDITOR;
    this.changed();
  }

  /** Takes the text to send (pastes expanded) and empties the prompt. */
  take(): string {
    const text = expandedText(this.current);
    this.clear();
    return text;
  }

  /** Up on the first line: the entry before the one shown (the draft is kept). */
  historyPrevious(): boolean {
    if (this.history.length === 0) return false;
    if (this.historyIndex === undefined) this.draft = this.current;
    const index =
      this.historyIndex === undefined
        ? this.history.length - 1
        : Math.max(0, this.historyIndex - 1);
    this.historyIndex = index;
    this.current = editorWith(this.history[index] ?? '');
    this.selected = 0;
    this.changed();
    return true;
  }

  /** Down on the last line: the next entry, then the draft the walk started from. */
  historyNext(): boolean {
    if (this.historyIndex === undefined) return false;
    const index = this.historyIndex + 1;
    if (index >= this.history.length) {
      this.historyIndex = undefined;
      this.current = this.draft;
    } else {
      this.historyIndex = index;
      this.current = editorWith(this.history[index] ?? '');
    }
    this.selected = 0;
    this.changed();
    return true;
  }

  private changed(): void {
    this.snapshot = { state: this.current, selected: this.selected };
    for (const listener of this.listeners) listener();
  }
}
