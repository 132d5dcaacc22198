/**
 * The shape of the import graph of src/: no two files import each other, src/base imports
 * nothing outside itself, and src/llm imports nothing but itself and src/base. Every relative
 * import counts: static imports and re-exports, `import type`, and dynamic `import('...')`.
 * Longer cycles are printed, not failed.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const source = join(repository, 'src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (entry.name.endsWith('.d.ts')) return [];
    return entry.name.endsWith('.ts') || entry.name.endsWith('.tsx') ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript's NodeNext resolution finds it. */
function resolveSpecifier(from: string, specifier: string): string {
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.(js|jsx)$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, join(target, 'index.ts'), target];
  return candidates.find((candidate) => existsSync(candidate)) ?? target;
}

/** Repository-relative path of every file `file` imports by a relative specifier. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const imported = ts.preProcessFile(text, true, true).importedFiles;
  return imported
    .map((reference) => reference.fileName)
    .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'))
    .map((specifier) => relative(repository, resolveSpecifier(file, specifier)));
}

function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(source).sort()) {
    graph.set(relative(repository, file), new Set(relativeImports(file)));
  }
  return graph;
}

const graph = importGraph();

const inside = (file: string, folder: string) => file.startsWith(`${folder}/`);

/** The strongly connected parts of the graph with more than one file (Tarjan's algorithm). */
function tangledParts(): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const parts: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    lowest.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) ?? 0, lowest.get(target) ?? 0));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1) parts.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return parts;
}

/** The shortest cycle from `start` back to itself, staying inside `part`. */
function shortestCycle(start: string, part: ReadonlySet<string>): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const target of graph.get(file) ?? []) {
      if (!part.has(target)) continue;
      if (target === start) {
        const cycle = [file];
        let step = file;
        while (step !== start) {
          step = previous.get(step) as string;
          cycle.unshift(step);
        }
        return cycle;
      }
      if (previous.has(target)) continue;
      previous.set(target, file);
      queue.push(target);
    }
  }
  return undefined;
}

test('the import graph sees every kind of relative import', () => {
  // One known edge of each kind keeps the parser honest.
  const edges = (file: string) => graph.get(file) ?? new Set<string>();
  assert.ok(graph.size > 100, `only ${graph.size} files under src/`);
  assert.ok(edges('src/index.ts').size > 0, 'src/index.ts re-exports nothing');
  const dynamic = [...graph].some(([file]) =>
    /import\(\s*['"]\.\.?\//.test(readFileSync(join(repository, file), 'utf8')),
  );
  assert.ok(dynamic, 'no dynamic import found to check');
});

test('no two files under src/ import each other', () => {
  const pairs: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (file < target && graph.get(target)?.has(file)) pairs.push(`${file} <-> ${target}`);
    }
  }
  assert.deepEqual(pairs, [], `files that import each other:\n${pairs.join('\n')}`);
});

test('src/base imports nothing from src/ outside src/base', () => {
  const strays: string[] = [];
  for (const [file, targets] of graph) {
    if (!inside(file, 'src/base')) continue;
    for (const target of targets) {
      if (!inside(target, 'src/base')) strays.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(strays, [], `src/base reaches outside itself:\n${strays.join('\n')}`);
});

test('src/llm imports nothing from src/ outside src/llm and src/base', () => {
  const strays: string[] = [];
  for (const [file, targets] of graph) {
    if (!inside(file, 'src/llm')) continue;
    for (const target of targets) {
      if (!inside(target, 'src/llm') && !inside(target, 'src/base')) {
        strays.push(`${file} -> ${target}`);
      }
    }
  }
  assert.deepEqual(strays, [], `src/llm reaches above itself:\n${strays.join('\n')}`);
});

test('longer cycles are listed (printed, not failed)', (context) => {
  const cycles = new Set<string>();
  for (const part of tangledParts()) {
    const members = new Set(part);
    for (const file of part) {
      const cycle = shortestCycle(file, members);
      if (!cycle || cycle.length < 3) continue;
      // The same cycle seen from another file: start it at its smallest file.
      const first = cycle.indexOf([...cycle].sort()[0] as string);
      const turned = [...cycle.slice(first), ...cycle.slice(0, first)];
      cycles.add([...turned, turned[0]].join(' -> '));
    }
  }
  for (const cycle of [...cycles].sort()) context.diagnostic(`cycle: ${cycle}`);
  context.diagnostic(`${cycles.size} longer cycles`);
});
