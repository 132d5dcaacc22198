/**
 * The isolated workflow engine's part of the engine code in each QuickJS realm (after
 * `quickjs/prelude-base.ts`): the script's globals (`agent`, `parallel`, `pipeline`, `phase`,
 * `log`, `args`, `budget`, `workflow`) as thin wrappers over the host function, the combinators,
 * the engine's fatal errors, and the words of the value boundary (`materialize.ts`'s, so both
 * engines refuse the same values with the same messages). It must never hand the script anything
 * but its own realm's values, and keeps its errors' codes in the closure.
 */
import { preludeSource } from '../../quickjs/prelude-base.js';
import { EXOTIC_HINTS } from '../materialize.js';

/** The file name the prelude is compiled under; its frames are cut from what the script reads. */
export const ENGINE_FILENAME = 'workflow-engine.js';

/** What the prelude's factory is given (as JSON text). */
export interface PreludeSettings {
  maxItemsPerCall: number;
  maxResultBytes: number;
  budgetTotal: number | null;
  /** The label of the value the realm's completion returns (`return value`, ...). */
  returnLabel: string;
  /** The script's file name, whose frames an engine-made error keeps. */
  scriptFilename: string;
  args: Record<string, unknown>;
}

/**
 * Host calls take JSON text and answer `{v}`, `{p: id}` or `{t: {code, message}}` (a fatal error
 * to throw); `returned` and `failed` report the ending. Internals: `settle`, `stop(code,
 * message)`, `watch(completion)`. Plain ES2020; no TypeScript.
 */
export const PRELUDE_SOURCE = preludeSource(String.raw`
  const promiseAll = Promise.all;
  const promiseRace = Promise.race;
  const promiseResolve = Promise.resolve;
  const mathMax = Math.max;
  const WeakMapConstructor = WeakMap;
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  const weakMapHas = WeakMap.prototype.has;
  /** The engine's fatal errors, each with its code and message as made (a script may rewrite both). */
  const fatalErrors = new WeakMapConstructor();

  /** Only the script's frames: the engine's own are cut, as on the worker engine. */
  function scriptStack(stack) {
    if (typeof stack !== 'string') return stack;
    const lines = apply(stringSplit, stack, ['\n']);
    const kept = apply(arrayFilter, lines, [
      (line) => !apply(stringIncludes, line, [${JSON.stringify(ENGINE_FILENAME)}]),
    ]);
    return apply(arrayJoin, kept, ['\n']);
  }

  class WorkflowError extends ErrorConstructor {}
  defineProperty(WorkflowError.prototype, 'name', { value: 'WorkflowError', writable: true, configurable: true });

  function makeFatal(code, message) {
    const error = new WorkflowError(message);
    defineValue(error, 'code', code);
    defineValue(error, 'fatal', true);
    try { error.stack = scriptStack(error.stack); } catch {}
    apply(weakMapSet, fatalErrors, [error, { code: toText(code), message: toText(message) }]);
    return error;
  }
  function fatalError(thrown) {
    return makeFatal(own(thrown, 'code'), own(thrown, 'message'));
  }
  /** A fatal error only the engine made (or the realm running out of memory). */
  function isFatal(error) {
    return (typeof error === 'object' && error !== null && apply(weakMapHas, fatalErrors, [error])) ||
      isOutOfMemory(error);
  }
  function renderOther(value) {
    return typeof value === 'function' ? describeFunction(value) : toText(value);
  }

  // --- describe and isPlainObject: as hooks.ts ---
  function isPlainObject(value) {
    if (typeof value !== 'object' || value === null || isArray(value)) return false;
    const prototype = getPrototypeOf(value);
    return prototype === null || getPrototypeOf(prototype) === null;
  }
  function describe(value) {
    if (value === null) return 'null';
    if (isArray(value)) return 'an array';
    if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
    if (typeof value === 'object') return isPlainObject(value) ? 'an object' : 'a non-plain object';
    const type = typeof value;
    return article(type);
  }

  // --- the words of the value boundary: as materialize.ts ---
  const LEAVE = ' cannot leave the workflow';
  const hints = ${JSON.stringify(EXOTIC_HINTS)};
  function describeExotic(value, prototype) {
    let tag = 'Object';
    try { tag = apply(stringSlice, apply(objectToString, value, []), [8, -1]); } catch {}
    let text;
    if (tag === 'String' || tag === 'Number' || tag === 'Boolean') text = 'a boxed ' + tag;
    else if (tag === 'Array') text = 'an array with a foreign prototype';
    else if (tag !== 'Object') text = article(tag);
    else {
      let constructorName = '';
      try {
        const owner = prototype === null ? undefined : prototype.constructor;
        if (typeof owner === 'function' && typeof owner.name === 'string') constructorName = owner.name;
      } catch {}
      text = constructorName ? 'an instance of ' + constructorName : 'an object with a non-plain prototype';
    }
    const hint = apply(hasOwnProperty, hints, [tag]) ? hints[tag] : 'convert it to a plain object or array';
    return text + LEAVE + '; ' + hint;
  }
  const problems = {
    number: (value) => toText(value) + LEAVE + '; JSON has no non-finite numbers',
    bigint: (value) => 'a bigint (' + toText(value) + 'n)' + LEAVE + '; use a string or number',
    symbol: (value) => 'a symbol (' + toText(value) + ')' + LEAVE,
    function: () => 'a function' + LEAVE,
    hole: () => 'a hole in a sparse array' + LEAVE + '; fill it with null',
    cycle: (value, back) => 'a cycle (back to ' + back + ')' + LEAVE,
    depth: () => 'nesting deeper than 1000 levels' + LEAVE,
    exotic: describeExotic,
    'array-heir': () => 'an object inheriting from an array' + LEAVE + '; use an array',
    'symbol-key': (value, symbol) => 'a symbol key (' + toText(symbol) + ')' + LEAVE,
    'named-key': () => 'a named property on an array' + LEAVE + '; use an object',
    threw: (error, action) => action + ' threw: ' + renderThrown(error),
  };
  const boundary = {
    maxDepth: 1000,
    omitUndefined: false,
    passes: isFatal,
    tooLarge(label, maxBytes) {
      return makeFatal('RESULT_TOO_LARGE', label + ': its JSON text is larger than ' + maxBytes + ' bytes (maxResultBytes); return less, or a summary');
    },
    refuse(trail, problem, value, detail) {
      const text = problem === 'undefined'
        ? (typeof trail.key === 'number'
          ? 'undefined' + LEAVE + ' inside an array; use null'
          : 'undefined' + LEAVE + ' as a property value; omit the key or use null')
        : problems[problem](value, detail);
      return makeFatal('RESULT_UNSERIALIZABLE', renderTrail(trail) + ': ' + text);
    },
  };

  /**
   * How a thrown value leaves the realm: a fatal error (its code and message as the engine made
   * them), running out of memory or an interrupt (with a rendering: the session believes either
   * only when it caused it), or its rendering.
   */
  function describeThrown(error) {
    try {
      const made = typeof error === 'object' && error !== null ? apply(weakMapGet, fatalErrors, [error]) : undefined;
      if (made !== undefined) return { code: made.code, message: made.message, fatal: true };
      if (isOutOfMemory(error)) return { memory: true, rendered: renderThrown(error) };
      if (InternalErrorConstructor !== undefined && error instanceof InternalErrorConstructor &&
        error.message === 'interrupted') return { interrupted: true, rendered: renderThrown(error) };
      return { rendered: renderThrown(error) };
    } catch {
      // A proxy whose traps throw: its rendering is all that cannot be had.
      return { rendered: '<unrenderable thrown value>' };
    }
  }

  // --- host calls ---
  /**
   * A hook argument for the host: a JSON value as text, or what it is (the host checks it with
   * the worker engine's own checks on a stand-in). A plain object or array JSON cannot carry is
   * sent as its kind with the refusal, which the host raises once its own checks pass.
   */
  function encode(value, label) {
    switch (typeof value) {
      case 'undefined': return { u: 1 };
      case 'function': return { f: 1 };
      case 'bigint': return { b: 1 };
      case 'symbol': return { s: 1 };
      case 'number':
        if (value !== value || value === Infinity || value === -Infinity) return { n: toText(value) };
        return { j: stringify(value) };
      case 'string': case 'boolean': return { j: stringify(value) };
      default:
        if (value === null) return { j: 'null' };
        if (!isArray(value) && !isPlainObject(value)) return { o: 1 };
        try {
          return { j: toJsonText(value, label) };
        } catch (error) {
          const thrown = describeThrown(error);
          if (thrown.memory) throw error;
          return { a: isArray(value) ? 1 : 0, e: thrown.fatal ? thrown : { code: 'RESULT_UNSERIALIZABLE', message: thrown.rendered } };
        }
    }
  }
  function encodeOptions(value, prefix) {
    if (!isPlainObject(value)) return encode(value, prefix);
    const keys = objectKeys(value);
    const entries = [];
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index];
      defineProperty(entries, index, {
        value: [key, encode(value[key], prefix + ' ' + key)],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return { k: entries };
  }
  function call(op, payload) {
    return request(op, jsonText(payload), true);
  }

  // --- the globals ---
  function agent(prompt, options) {
    return call('agent', [encode(prompt, 'agent() prompt'), encodeOptions(options, 'agent() option')]);
  }
  function phase(title) {
    call('phase', [encode(title, 'phase() title')]);
  }
  function log(message) {
    call('log', [encode(message, 'log() message')]);
  }
  function workflow(target, args) {
    return call('workflow', [encode(target, 'workflow() target'), encode(args, 'workflow() args')]);
  }
  function stopped() {
    const thrown = own(parse(hostCall('stopped', '[]')), 't');
    return thrown === undefined ? undefined : makeFatal(own(thrown, 'code'), own(thrown, 'message'));
  }
  let rejectCancellation = noop;
  const cancellation = handOut(new PromiseConstructor((_resolve, reject) => { rejectCancellation = reject; }));

  // --- parallel and pipeline: as combinators.ts ---
  function checkItemCount(hook, itemCount) {
    if (itemCount > settings.maxItemsPerCall) {
      throw makeFatal('ITEM_CAP', hook + ' was given ' + itemCount + ' items; the limit is ' + settings.maxItemsPerCall + ' a call (maxItemsPerCall)');
    }
  }
  function untilCancelled(work) {
    return handOut(apply(promiseRace, PromiseConstructor, [[work, cancellation]]));
  }
  function nullUnlessFatal(error) {
    if (isFatal(error)) throw error;
    return null;
  }
  function settleItem(thunk) {
    let started;
    try {
      started = thunk();
    } catch (error) {
      return isFatal(error) ? apply(promiseReject, PromiseConstructor, [error]) : apply(promiseResolve, PromiseConstructor, [null]);
    }
    return then(apply(promiseResolve, PromiseConstructor, [started]), undefined, nullUnlessFatal);
  }
  function parallel(thunks) {
    const stop = stopped();
    if (stop) return rejected(stop);
    if (!isArray(thunks)) {
      throw makeFatal('INVALID_ARGUMENT', 'parallel() takes an array of functions (such as () => agent(...)), not ' + describe(thunks));
    }
    checkItemCount('parallel()', thunks.length);
    const list = arrayFrom(thunks);
    for (let index = 0; index < list.length; index += 1) {
      if (typeof list[index] !== 'function') {
        throw makeFatal('INVALID_ARGUMENT', 'parallel() item ' + index + ' must be a function (such as () => agent(...)), not ' + describe(list[index]));
      }
    }
    const items = apply(arrayMap, list, [(thunk) => settleItem(thunk)]);
    return untilCancelled(apply(promiseAll, PromiseConstructor, [items]));
  }
  async function runItem(stages, item, index) {
    let value = item;
    for (const stage of stages) {
      const stop = stopped();
      if (stop) throw stop;
      try {
        value = await stage(value, item, index);
      } catch (error) {
        return nullUnlessFatal(error);
      }
    }
    return value;
  }
  function pipeline(items, ...stages) {
    const stop = stopped();
    if (stop) return rejected(stop);
    if (!isArray(items)) {
      throw makeFatal('INVALID_ARGUMENT', 'pipeline() takes an array of items first, not ' + describe(items));
    }
    checkItemCount('pipeline()', items.length);
    if (stages.length === 0) {
      throw makeFatal('INVALID_ARGUMENT', 'pipeline() needs at least one stage function after the items');
    }
    for (let index = 0; index < stages.length; index += 1) {
      if (typeof stages[index] !== 'function') {
        throw makeFatal('INVALID_ARGUMENT', 'pipeline() stage ' + (index + 1) + ' must be a function (previous, item, index) => ..., not ' + describe(stages[index]));
      }
    }
    const list = arrayFrom(items);
    const runs = apply(arrayMap, list, [(item, index) => runItem(stages, item, index)]);
    return untilCancelled(apply(promiseAll, PromiseConstructor, [runs]));
  }

  const total = settings.budgetTotal;
  const budget = freeze({
    total,
    spent: function spent() {
      return call('spent', []);
    },
    remaining: function remaining() {
      return total === null ? Infinity : mathMax(0, total - call('spent', []));
    },
  });

  const globals = { agent, parallel, pipeline, phase, log, args: settings.args, budget, workflow };
  for (const name of objectKeys(globals)) {
    defineProperty(globalThis, name, { value: globals[name], writable: true, enumerable: true, configurable: true });
  }


  function failed(error) {
    hostCall('failed', jsonText(describeThrown(error)));
  }

  // --- what the host holds; never reachable from the script ---
  return {
    settle: baseInternals.settle,
    /** The run is stopped: the combinators' cancellation race ends with this fatal error. */
    stop(code, message) {
      rejectCancellation(makeFatal(code, message));
    },
    /** Reports how the script's completion settles, through the host function. */
    watch(completion) {
      report(completion, (value) => toJsonText(value, settings.returnLabel, settings.maxResultBytes), failed);
    },
  };`);
