/**
 * Every room (a folder directly under src/) has a README.md with the four sections a newcomer
 * reads first: what it owns, what it must never do, its events and error codes, who may import
 * it. No room is skipped: a new folder fails here until its README is written.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const sourceFolder = fileURLToPath(new URL('../../src/', import.meta.url));

const requiredHeadings = [
  '## Owns',
  '## Never',
  '## Events and error codes',
  '## Who may import it',
] as const;

const rooms = readdirSync(sourceFolder, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** What is wrong with one room's README, one line a problem; empty when nothing is. */
function readmeProblems(room: string): string[] {
  const readme = join(sourceFolder, room, 'README.md');
  if (!existsSync(readme)) return [`src/${room} has no README.md`];
  const lines = new Set(
    readFileSync(readme, 'utf8')
      .split('\n')
      .map((line) => line.trimEnd()),
  );
  return requiredHeadings
    .filter((heading) => !lines.has(heading))
    .map((heading) => `src/${room}/README.md lacks the heading "${heading}"`);
}

test('src/ has rooms to check', () => {
  assert.ok(rooms.length > 0, `no folders found under ${sourceFolder}`);
});

for (const room of rooms) {
  test(`src/${room} has a README.md with the four sections`, () => {
    assert.deepEqual(readmeProblems(room), []);
  });
}
