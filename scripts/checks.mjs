// The checks `npm test` runs before the tests: lint, typecheck and build, side by side. tsc is
// single-threaded and the build's own tsc is most of `npm run build`, so on two cores the two
// overlap instead of queueing (biome, quick, shares the cores with them); none of the three reads
// what another writes (the build writes only its own `.dist-ID/` folder and then swaps `dist`).
// Each one's output is held and printed whole, in this order, when all have ended, so they never
// interleave; the exit status is non-zero when any failed, and names which.
import { spawn } from 'node:child_process';

const CHECKS = ['lint', 'typecheck', 'build'];

function runScript(name) {
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ name, ok: code === 0 && !signal, output }));
  });
}

const results = await Promise.all(CHECKS.map(runScript));
for (const { name, ok, output } of results) {
  process.stdout.write(`> npm run ${name}: ${ok ? 'ok' : 'FAILED'}\n`);
  for (const chunk of output) process.stdout.write(chunk);
}
const failed = results.filter((result) => !result.ok).map((result) => result.name);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
