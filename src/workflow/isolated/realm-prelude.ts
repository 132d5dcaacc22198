/**
 * The engine code that runs inside each QuickJS realm before the script: the script's globals
 * (`agent`, `parallel`, `pipeline`, `phase`, `log`, `args`, `budget`, `workflow`) as thin
 * wrappers over one host function that takes and returns JSON text, the combinators, and the
 * value boundary (a copy of `materialize.ts`'s rules, so both engines refuse the same values with
 * the same messages). It must never hand the script anything but its own realm's values: the
 * host function and the internals object stay in this closure. Nothing the script changes may
 * alter what it sends: it uses only builtins captured before the script ran, stringifies only
 * null-prototype copies (no `toJSON` can be found), reads the host's replies by own keys only,
 * and keeps its errors' codes in the closure.
 */

/** The file name the prelude is compiled under; its frames are cut from what the script reads. */
export const ENGINE_FILENAME = 'workflow-engine.js';

/** What the prelude's factory is given besides the host function (as JSON text). */
export interface PreludeSettings {
  maxItemsPerCall: number;
  maxResultBytes: number;
  budgetTotal: number | null;
  /** The label of the value the realm's completion returns (`return value`, ...). */
  returnLabel: string;
  /** The script's file name, whose frames an engine-made error keeps. */
  scriptFilename: string;
}

/**
 * A function expression: `(hostCall, settingsJson, argsJson) => internals`. `hostCall(op,
 * payload)` is the only way out; it returns JSON text `{v}` (a value), `{p: id}` (a pending
 * host promise, settled later through `internals.settle`) or `{t: {code, message, fatal}}` (a
 * fatal error to throw). Plain ES2020; no TypeScript.
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, settingsJson, argsJson) {
  'use strict';
  const apply = Reflect.apply;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const getPrototypeOf = Object.getPrototypeOf;
  const objectKeys = Object.keys;
  const ownSymbols = Object.getOwnPropertySymbols;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const objectCreate = Object.create;
  const setPrototypeOf = Object.setPrototypeOf;
  const ObjectPrototype = Object.prototype;
  const ArrayPrototype = Array.prototype;
  const toText = String;
  const toNumber = Number;
  const MapConstructor = Map;
  const mathMax = Math.max;
  const isArray = Array.isArray;
  const arrayFrom = Array.from;
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;
  const objectToString = Object.prototype.toString;
  const PromiseConstructor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseAll = Promise.all;
  const promiseRace = Promise.race;
  const promiseReject = Promise.reject;
  const promiseResolve = Promise.resolve;
  const WeakMapConstructor = WeakMap;
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  const weakMapHas = WeakMap.prototype.has;
  const stringSplit = String.prototype.split;
  const stringIncludes = String.prototype.includes;
  const stringSlice = String.prototype.slice;
  const regExpTest = RegExp.prototype.test;
  const arrayJoin = Array.prototype.join;
  const arrayFilter = Array.prototype.filter;
  const arrayMap = Array.prototype.map;
  const ErrorConstructor = Error;
  const InternalErrorConstructor = typeof InternalError === 'function' ? InternalError : undefined;
  const settings = parse(settingsJson);
  const noop = function () {};
  /** The engine's fatal errors, each with its code and message as made (a script may rewrite both). */
  const fatalErrors = new WeakMapConstructor();
  const pending = new MapConstructor();
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;

  function then(promise, onFulfilled, onRejected) {
    return apply(promiseThen, promise, [onFulfilled, onRejected]);
  }
  function handOut(promise) {
    then(promise, undefined, noop);
    return promise;
  }
  function rejected(error) {
    return handOut(apply(promiseReject, PromiseConstructor, [error]));
  }

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
    defineProperty(error, 'code', { value: code, enumerable: true, writable: true, configurable: true });
    defineProperty(error, 'fatal', { value: true, enumerable: true, writable: true, configurable: true });
    try { error.stack = scriptStack(error.stack); } catch {}
    apply(weakMapSet, fatalErrors, [error, { code: toText(code), message: toText(message) }]);
    return error;
  }

  function isOutOfMemory(error) {
    return InternalErrorConstructor !== undefined && error instanceof InternalErrorConstructor &&
      error.message === 'out of memory';
  }

  /** A fatal error only the engine made (or the realm running out of memory). */
  function isFatal(error) {
    return (typeof error === 'object' && error !== null && apply(weakMapHas, fatalErrors, [error])) ||
      isOutOfMemory(error);
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
    return (apply(regExpTest, /^[aeiou]/, [type]) ? 'an ' : 'a ') + type;
  }

  // --- the value boundary: as materialize.ts, plus a byte budget ---
  const MAXIMUM_DEPTH = 1000;
  function appendPath(path, key) {
    if (typeof key === 'number') return path + '[' + key + ']';
    return apply(regExpTest, /^[A-Za-z_$][\w$]*$/, [key]) ? path + '.' + key : path + '[' + stringify(key) + ']';
  }
  function renderTrail(trail) {
    if (trail.parent === undefined) return toText(trail.key);
    return appendPath(renderTrail(trail.parent), trail.key);
  }
  function refuse(trail, problem) {
    return makeFatal('RESULT_UNSERIALIZABLE', renderTrail(trail) + ': ' + problem);
  }
  const hints = {
    Date: 'convert it with toISOString()',
    Promise: 'await it first',
    Error: 'return its message as a string',
    String: 'use the primitive string',
    Number: 'use the primitive number',
    Boolean: 'use the primitive boolean',
  };
  function describeExotic(value, prototype) {
    let tag = 'Object';
    try { tag = apply(stringSlice, apply(objectToString, value, []), [8, -1]); } catch {}
    let text;
    if (tag === 'String' || tag === 'Number' || tag === 'Boolean') text = 'a boxed ' + tag;
    else if (tag === 'Array') text = 'an array with a foreign prototype';
    else if (tag !== 'Object') text = (apply(regExpTest, /^[AEIO]/, [tag]) ? 'an ' : 'a ') + tag;
    else {
      let constructorName = '';
      try {
        const owner = prototype === null ? undefined : prototype.constructor;
        if (typeof owner === 'function' && typeof owner.name === 'string') constructorName = owner.name;
      } catch {}
      text = constructorName ? 'an instance of ' + constructorName : 'an object with a non-plain prototype';
    }
    const hint = apply(hasOwnProperty, hints, [tag]) ? hints[tag] : 'convert it to a plain object or array';
    return text + ' cannot leave the workflow; ' + hint;
  }
  function attempt(trail, action, operation) {
    try {
      return operation();
    } catch (error) {
      if (isFatal(error)) throw error;
      throw refuse(trail, action + ' threw: ' + renderThrown(error));
    }
  }

  /**
   * A fresh JSON value of this realm, or a fatal RESULT_UNSERIALIZABLE naming the path; with
   * maxBytes, RESULT_TOO_LARGE as soon as the JSON text would exceed it (an array's smallest
   * text is counted before its items are walked).
   */
  function materialize(value, label, maxBytes) {
    const walk = { ancestors: new MapConstructor(), bytes: 0, maxBytes, label };
    if (value === undefined) return null;
    return copyValue(walk, value, { parent: undefined, key: label }, 0);
  }
  function count(walk, bytes) {
    walk.bytes += bytes;
    if (walk.maxBytes !== undefined && walk.bytes > walk.maxBytes) {
      throw makeFatal('RESULT_TOO_LARGE', walk.label + ': its JSON text is larger than ' + walk.maxBytes + ' bytes (maxResultBytes); return less, or a summary');
    }
  }
  function copyValue(walk, value, trail, depth) {
    switch (typeof value) {
      case 'string':
        count(walk, value.length + 2);
        return value;
      case 'boolean':
        count(walk, value ? 4 : 5);
        return value;
      case 'number':
        if (value === value && value !== Infinity && value !== -Infinity) {
          count(walk, toText(value).length);
          return value;
        }
        throw refuse(trail, toText(value) + ' cannot leave the workflow; JSON has no non-finite numbers');
      case 'bigint':
        throw refuse(trail, 'a bigint (' + toText(value) + 'n) cannot leave the workflow; use a string or number');
      case 'symbol':
        throw refuse(trail, 'a symbol (' + toText(value) + ') cannot leave the workflow');
      case 'function':
        throw refuse(trail, 'a function cannot leave the workflow');
      case 'undefined':
        throw refuse(trail, typeof trail.key === 'number'
          ? 'undefined cannot leave the workflow inside an array; use null'
          : 'undefined cannot leave the workflow as a property value; omit the key or use null');
      default:
        if (value === null) {
          count(walk, 4);
          return null;
        }
        return copyObject(walk, value, trail, depth);
    }
  }
  function copyObject(walk, value, trail, depth) {
    const earlier = apply(mapGet, walk.ancestors, [value]);
    if (earlier !== undefined) {
      throw refuse(trail, 'a cycle (back to ' + renderTrail(earlier) + ') cannot leave the workflow');
    }
    if (depth >= MAXIMUM_DEPTH) {
      throw refuse(trail, 'nesting deeper than ' + MAXIMUM_DEPTH + ' levels cannot leave the workflow');
    }
    const prototype = attempt(trail, 'reading its prototype', () => getPrototypeOf(value));
    const valueIsArray = attempt(trail, 'inspecting it', () => isArray(value));
    const allowed = prototype === null || prototype === ObjectPrototype || prototype === ArrayPrototype;
    if (!allowed) throw refuse(trail, describeExotic(value, prototype));
    if (!valueIsArray && isArray(prototype)) {
      throw refuse(trail, 'an object inheriting from an array cannot leave the workflow; use an array');
    }
    const symbols = attempt(trail, 'listing its symbol keys', () =>
      apply(arrayFilter, ownSymbols(value), [(symbol) => apply(propertyIsEnumerable, value, [symbol])]));
    if (symbols.length > 0) {
      throw refuse(trail, 'a symbol key (' + toText(symbols[0]) + ') cannot leave the workflow');
    }
    apply(mapSet, walk.ancestors, [value, trail]);
    const copy = valueIsArray ? copyArray(walk, value, trail, depth) : copyPlainObject(walk, value, trail, depth);
    apply(mapDelete, walk.ancestors, [value]);
    return copy;
  }
  function copyArray(walk, value, trail, depth) {
    const length = value.length;
    // "[]", the commas, and at least one character per item: refused before a long walk.
    count(walk, 2 + (length > 0 ? 2 * length - 1 : 0));
    walk.bytes -= length;
    const keys = attempt(trail, 'listing its keys', () => objectKeys(value));
    if (keys.length > length) {
      let named = '';
      for (const key of keys) {
        if (!apply(regExpTest, /^(0|[1-9]\d*)$/, [key]) || toNumber(key) >= length) { named = key; break; }
      }
      throw refuse({ parent: trail, key: named }, 'a named property on an array cannot leave the workflow; use an object');
    }
    const copy = nullArray();
    for (let index = 0; index < length; index += 1) {
      const child = { parent: trail, key: index };
      if (!apply(hasOwnProperty, value, [index])) {
        throw refuse(child, 'a hole in a sparse array cannot leave the workflow; fill it with null');
      }
      const element = attempt(child, 'reading it', () => value[index]);
      walk.bytes -= 1;
      defineProperty(copy, index, {
        value: copyValue(walk, element, child, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  function copyPlainObject(walk, value, trail, depth) {
    const copy = objectCreate(null);
    const keys = attempt(trail, 'listing its keys', () => objectKeys(value));
    count(walk, 2 + (keys.length > 0 ? keys.length - 1 : 0));
    for (const key of keys) {
      const child = { parent: trail, key };
      const property = attempt(child, 'reading it', () => value[key]);
      count(walk, key.length + 3);
      defineProperty(copy, key, {
        value: copyValue(walk, property, child, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  /** A value's JSON text, through its materialized copy (null prototypes throughout). */
  function toJsonText(value, label, maxBytes) {
    return stringify(materialize(value, label, maxBytes));
  }

  /**
   * The JSON text of a value the engine built (a payload, a description): JSON.stringify of a
   * copy whose every object and array has a null prototype (a materialized copy has them already),
   * so it finds no toJSON the script put on a prototype and reads own keys only.
   */
  function jsonText(value) {
    return stringify(detached(value));
  }
  function detached(value) {
    if (typeof value !== 'object' || value === null) return value;
    const copy = isArray(value) ? nullArray() : objectCreate(null);
    const keys = objectKeys(value);
    for (let index = 0; index < keys.length; index += 1) {
      defineProperty(copy, keys[index], {
        value: detached(value[keys[index]]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  /** An array no prototype reaches: no index setter, no toJSON. */
  function nullArray() {
    const list = [];
    setPrototypeOf(list, null);
    return list;
  }

  /** A host reply's own key (a key the script put on Object.prototype is not the host's). */
  function own(reply, key) {
    return apply(hasOwnProperty, reply, [key]) ? reply[key] : undefined;
  }

  // --- rendering a thrown value: as render-thrown.ts, with QuickJS's stack under its message ---
  function readString(value, key) {
    if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return undefined;
    try {
      const property = value[key];
      return typeof property === 'string' && property.length > 0 ? property : undefined;
    } catch {
      return undefined;
    }
  }
  function renderThrown(value) {
    const message = readString(value, 'message');
    const stack = readString(value, 'stack');
    if (message !== undefined || stack !== undefined) {
      let name = readString(value, 'name') ?? 'Error';
      const head = message !== undefined ? name + ': ' + message : name;
      return stack !== undefined ? head + '\n' + stack : head;
    }
    if (typeof value === 'function') {
      const name = readString(value, 'name');
      return name ? '[function ' + name + ']' : '[function]';
    }
    try {
      return toText(value);
    } catch {
      return '<unrenderable thrown value>';
    }
  }
  /**
   * How a thrown value leaves the realm: a fatal error (its code and message as the engine made
   * them), running out of memory or an interrupt (with a rendering: the session believes either
   * only when it caused it), or its rendering.
   */
  function describeThrown(error) {
    try {
      return describeThrownValue(error);
    } catch {
      // A proxy whose traps throw: its rendering is all that cannot be had.
      return { rendered: '<unrenderable thrown value>' };
    }
  }
  function describeThrownValue(error) {
    const made = typeof error === 'object' && error !== null ? apply(weakMapGet, fatalErrors, [error]) : undefined;
    if (made !== undefined) return { code: made.code, message: made.message, fatal: true };
    if (isOutOfMemory(error)) return { memory: true, rendered: renderThrown(error) };
    if (InternalErrorConstructor !== undefined && error instanceof InternalErrorConstructor &&
      error.message === 'interrupted') return { interrupted: true, rendered: renderThrown(error) };
    return { rendered: renderThrown(error) };
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
    const reply = parse(hostCall(op, jsonText(payload)));
    const thrown = own(reply, 't');
    if (thrown !== undefined) throw makeFatal(own(thrown, 'code'), own(thrown, 'message'));
    const id = own(reply, 'p');
    if (id !== undefined) {
      const promise = new PromiseConstructor((resolve, reject) => {
        apply(mapSet, pending, [id, { resolve, reject }]);
      });
      return handOut(promise);
    }
    return own(reply, 'v');
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

  const globals = { agent, parallel, pipeline, phase, log, args: parse(argsJson), budget, workflow };
  for (const name of objectKeys(globals)) {
    defineProperty(globalThis, name, { value: globals[name], writable: true, enumerable: true, configurable: true });
  }

  async function report(completion) {
    let value;
    try {
      value = await completion;
    } catch (error) {
      hostCall('failed', jsonText(describeThrown(error)));
      return;
    }
    let text;
    try {
      text = toJsonText(value, settings.returnLabel, settings.maxResultBytes);
    } catch (error) {
      hostCall('failed', jsonText(describeThrown(error)));
      return;
    }
    hostCall('returned', text);
  }

  // --- what the host holds; never reachable from the script ---
  return {
    /** Settles a pending host call: {v: value} or {t: {code, message}} or {r: rendered}. */
    settle(id, replyJson) {
      const entry = apply(mapGet, pending, [id]);
      if (entry === undefined) return;
      apply(mapDelete, pending, [id]);
      const reply = parse(replyJson);
      const thrown = own(reply, 't');
      const rendered = own(reply, 'r');
      if (thrown !== undefined) entry.reject(makeFatal(own(thrown, 'code'), own(thrown, 'message')));
      else if (rendered !== undefined) entry.reject(new ErrorConstructor(rendered));
      else entry.resolve(own(reply, 'v'));
    },
    /** The run is stopped: the combinators' cancellation race ends with this fatal error. */
    stop(code, message) {
      rejectCancellation(makeFatal(code, message));
    },
    /**
     * Reports how the script's completion settles, through the host function. It awaits rather
     * than calling then(): then() reads the promise's constructor, which the script can replace;
     * with its own constructor the engine's promise is awaited directly.
     */
    watch(completion) {
      defineProperty(completion, 'constructor', { value: PromiseConstructor });
      report(completion);
    },
  };
})`;
