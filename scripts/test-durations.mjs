// A node:test reporter for `node scripts/test.mjs --durations`: writes one JSON line per test
// file, `{"file":…,"ms":…}`, the wall time of that file's process (node reports each file as a
// test of its own, named by its path, whose `test:complete` carries the duration). Wall time
// under --test-concurrency includes waiting for the cores, so read it as "where the time goes",
// not as a benchmark. Writes nothing else; the TAP reporter beside it is unchanged.
export default async function* fileDurations(source) {
  for await (const event of source) {
    if (event.type !== 'test:complete') continue;
    const { file, name, details } = event.data;
    if (file === undefined || name !== file) continue;
    yield `${JSON.stringify({ file, ms: details?.duration_ms ?? 0 })}\n`;
  }
}
