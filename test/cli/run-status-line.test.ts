/**
 * `loom run`'s status line against fake streams and a ticker the test drives: drawn on a
 * terminal's stderr only, erased before other output, never beside an open line of the answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainRenderer } from '../../src/cli/render-plain.js';
import { withRunStatusLine } from '../../src/cli/run-status-line.js';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import { Ticker } from '../../src/tui/ticker.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: Object.assign(
      {
        write(text: string) {
          written.push(text);
          return true;
        },
      },
      isTTY ? { isTTY: true, columns: 100 } : {},
    ) as unknown as NodeJS.WriteStream,
  };
}

function event<Type extends SessionEventType>(
  type: Type,
  time: number,
  data: Partial<SessionEvent<Type>['data']> = {},
): SessionEvent {
  return { type, seq: 0, time, data: { turnId: 't1', step: 1, ...data } as never };
}

function drive() {
  const ticks: Array<() => void> = [];
  const ticker = new Ticker(100, {
    start(tick) {
      ticks.push(tick);
      return () => {};
    },
  });
  return { ticker, tick: () => ticks.at(-1)?.() };
}

test('on a terminal the status line is drawn on stderr, erased before a tool line, and kept off stdout and off an open answer line', () => {
  const out = stream(true);
  const err = stream(true);
  const clock = drive();
  let now = 0;
  const renderer = withRunStatusLine(plainRenderer(out.stream, err.stream), err.stream, {
    agents: () => 0,
    now: () => now,
    ticker: clock.ticker,
  });
  renderer.render(event('turn/start', 0));
  now = 3000;
  clock.tick();
  assert.match(err.written.at(-1) ?? '', /3s · 0↑ 0↓ · thinking · ctrl\+c to interrupt/);
  renderer.render(event('tool/call', 3000, { callId: 'c1', name: 'glob', arguments: {} }));
  const toolLine = err.written.findIndex((text) => text.includes('glob'));
  assert.equal(err.written[toolLine - 1], '\r\x1b[2K');
  assert.match(err.written.at(-1) ?? '', /running glob/);
  renderer.render(event('tool/result', 3000, { callId: 'c1', name: 'glob', content: 'a' }));
  renderer.render(event('assistant/chunk', 3000, { kind: 'text', text: 'half a line' }));
  const before = err.written.length;
  clock.tick();
  assert.equal(err.written.length, before, 'nothing is drawn beside the open answer line');
  assert.deepEqual(out.written, ['half a line']);
  renderer.render(event('turn/end', 4000));
  renderer.finish();
  assert.ok(!out.written.join('').includes('interrupt'));
});

test('with stderr not a terminal the renderer is the plain one: no status line is ever written', () => {
  const out = stream(false);
  const err = stream(false);
  const clock = drive();
  const plain = plainRenderer(out.stream, err.stream);
  const renderer = withRunStatusLine(plain, err.stream, { agents: () => 0, ticker: clock.ticker });
  assert.equal(renderer, plain);
});
