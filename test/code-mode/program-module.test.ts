/**
 * A program thread instantiates the QuickJS module its host handed it (the runner passes the one
 * its process compiled), so every thread shares the code V8 optimizes for it. Served here in this
 * thread, over a stand-in port, with a module that is not QuickJS at all.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProgramOutcome } from '../../src/code-mode/program-contract.js';
import type { HostToProgram, ProgramToHost } from '../../src/code-mode/program-protocol.js';
import { serveProgramThread } from '../../src/code-mode/program-session.js';

/** The smallest valid WebAssembly module: it compiles, and has none of QuickJS's exports. */
const EMPTY_MODULE = new (
  globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }
).WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));

test('a program thread runs on the compiled module its host handed it, not on its own', async () => {
  let deliver: ((message: unknown) => void) | undefined;
  const outcome = await new Promise<ProgramOutcome>((resolve) => {
    const run: HostToProgram = {
      type: 'run',
      run: 1,
      code: 'return 1;',
      toolNames: [],
      limits: { timeoutMs: 5000, memoryMb: 16, outputBytes: 1000 },
    };
    serveProgramThread(
      {
        post(message: ProgramToHost) {
          if (message.type === 'ready') deliver?.(run);
          else if (message.type === 'done') resolve(message.outcome);
        },
        receive: () => undefined,
        onMessage(listener) {
          deliver = listener;
        },
      },
      EMPTY_MODULE,
    );
  });
  assert.equal(outcome.kind, 'threw', JSON.stringify(outcome));
  assert.match(
    outcome.kind === 'threw' ? outcome.message : '',
    /^the program engine could not load QuickJS: /,
  );
});
