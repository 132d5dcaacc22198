/**
 * Code Mode's part of the engine code in a program's realm (after `quickjs/prelude-base.ts`):
 * `tools` and `console` as thin wrappers over the host function, and the report of how the
 * program ended. It must never hand the program anything but its own realm's values.
 */
import { preludeSource } from '../quickjs/prelude-base.js';

/** The file name the prelude is compiled under; its frames never reach the program's reader. */
export const PROGRAM_ENGINE_FILENAME = 'program-engine.js';

/**
 * Host calls: `call` (`[name, argumentsJson]` → `{p: index}`, settled with the tool's answer),
 * `console` (a line → `{v: 'full'}` once the output cap is reached), `returned` (the value's JSON
 * text, empty for undefined), `failed` (the rendered thrown value). Internals: `setup(toolNames)`
 * defines the globals, `settle`, `watch(completion)`.
 */
export const PROGRAM_PRELUDE_SOURCE = preludeSource(String.raw`
  let outputFull = false;
  const ONLY_JSON = '; only JSON values can be passed (null, booleans, finite numbers, strings, arrays, plain objects)';
  function fatalError(failure) {
    return hostError(failure);
  }
  function renderOther(value) {
    return formatValue(value);
  }
  function kindOf(value) {
    let tag = 'Object';
    try { tag = apply(stringSlice, apply(objectToString, value, []), [8, -1]); } catch {}
    if (tag === 'Date') return 'a Date (convert it with toISOString())';
    return tag === 'Object' ? 'an object with a non-plain prototype' : article(tag);
  }
  const problems = {
    number: (value) => toText(value),
    undefined: () => 'undefined',
    hole: () => 'undefined',
    cycle: () => 'a cycle',
    depth: () => 'nested deeper than 200 levels',
    exotic: kindOf,
    'array-heir': () => 'an object with a non-plain prototype',
    'symbol-key': () => 'an object with a symbol key',
    'named-key': () => 'a named property of an array',
    threw: (error, action) => 'unreadable (' + action + ' threw ' + renderThrown(error) + ')',
  };
  const boundary = {
    maxDepth: 200,
    omitUndefined: true,
    passes: () => false,
    refuse(trail, problem, value, detail) {
      const what = apply(hasOwnProperty, problems, [problem]) ? problems[problem](value, detail) : article(problem);
      return new TypeErrorConstructor(renderTrail(trail) + ' is ' + what + ONLY_JSON);
    },
  };

  // --- console: strings as they are, other values as JSON where JSON holds them ---
  function formatValue(value) {
    switch (typeof value) {
      case 'string': return value;
      case 'bigint': return toText(value) + 'n';
      case 'function': return describeFunction(value);
      case 'object': {
        if (value === null) return 'null';
        if (isError(value)) {
          const name = readString(value, 'name') || 'Error';
          const message = readString(value, 'message');
          return message ? name + ': ' + message : name;
        }
        try {
          const text = stringify(value);
          return text === undefined ? toText(value) : text;
        } catch {
          return toText(value);
        }
      }
      default: return toText(value);
    }
  }
  function write() {
    if (outputFull) return;
    const parts = [];
    for (let index = 0; index < arguments.length; index += 1) {
      let text;
      try { text = formatValue(arguments[index]); } catch { text = '[unprintable value]'; }
      apply(arrayPush, parts, [text]);
    }
    if (request('console', apply(arrayJoin, parts, [' ']) + '\n') === 'full') outputFull = true;
  }
  function consoleMethod(name) {
    const method = function () { apply(write, undefined, arguments); };
    defineProperty(method, 'name', { value: name });
    return method;
  }

  function makeTool(name) {
    const label = 'tools' + appendPath('', name) + '(): args';
    const tool = function (args) {
      let text;
      try {
        text = toJsonText(args === undefined ? {} : args, label);
      } catch (error) {
        return rejected(error);
      }
      return request('call', '[' + stringify(name) + ',' + stringify(text) + ']');
    };
    defineProperty(tool, 'name', { value: name });
    return freeze(tool);
  }

  function returned(value) {
    if (value === undefined) return '';
    let text;
    try {
      text = stringify(value);
    } catch (error) {
      throw new TypeErrorConstructor('the program returned a value JSON cannot hold: ' + renderThrown(error));
    }
    if (text === undefined) {
      throw new TypeErrorConstructor('the program returned ' + article(typeof value) + ', which JSON cannot hold; return plain data');
    }
    return text;
  }
  function failed(error) {
    hostCall('failed', renderThrown(error));
  }

  return {
    settle: baseInternals.settle,
    setup(toolNamesJson) {
      const names = parse(toolNamesJson);
      const tools = {};
      for (let index = 0; index < names.length; index += 1) {
        defineProperty(tools, names[index], { value: makeTool(names[index]), enumerable: true });
      }
      const console = freeze({
        log: consoleMethod('log'),
        info: consoleMethod('info'),
        warn: consoleMethod('warn'),
        error: consoleMethod('error'),
      });
      defineProperty(globalThis, 'tools', { value: freeze(tools), writable: true, configurable: true });
      defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
    },
    watch(completion) {
      report(completion, returned, failed);
    },
  };`);
