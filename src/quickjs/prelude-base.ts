/**
 * The engine code both uses run in a realm before their own: the builtins captured before any
 * script runs, the value boundary (a realm value out as a fresh JSON value, or a refusal that
 * names its path), the host-call bridge with its pending host promises, and the rendering of a
 * thrown value. It must never hand a script anything but its own realm's values: the host
 * function and what it builds stay in the prelude's closure, and nothing the script changes
 * (a prototype's `toJSON`, a replaced `then`) alters what crosses.
 */

/**
 * A use's prelude: a function expression `(hostCall, settingsJson) => internals`, its body this
 * base then `useSource`. The use's part defines what the base calls by name:
 * `boundary` (`{maxDepth, omitUndefined, refuse(trail, problem, value, detail)}`), `fatalError(t)`
 * (the error a `{t}` reply throws) and `renderOther(value)` (a thrown value that is no error).
 * `hostCall(op, text)` returns JSON text: `{v}` a value, `{p: id}` a pending host promise
 * (settled through `settle`), `{t}` an error to throw at once. Plain ES2020; no TypeScript.
 */
export function preludeSource(useSource: string): string {
  return `(function (hostCall, settingsJson) {\n${PRELUDE_BASE}\n${useSource}\n})`;
}

const PRELUDE_BASE = String.raw`'use strict';
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
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const isArray = Array.isArray;
  const arrayFrom = Array.from;
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;
  const objectToString = Object.prototype.toString;
  const PromiseConstructor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseReject = Promise.reject;
  const stringSplit = String.prototype.split;
  const stringIncludes = String.prototype.includes;
  const stringSlice = String.prototype.slice;
  const regExpTest = RegExp.prototype.test;
  const arrayJoin = Array.prototype.join;
  const arrayPush = Array.prototype.push;
  const arrayFilter = Array.prototype.filter;
  const arrayMap = Array.prototype.map;
  const ErrorConstructor = Error;
  const TypeErrorConstructor = TypeError;
  const InternalErrorConstructor = typeof InternalError === 'function' ? InternalError : undefined;
  const settings = parse(settingsJson);
  const noop = function () {};
  const pending = new MapConstructor();

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
  function article(word) {
    return (apply(regExpTest, /^[aeiouAEIO]/, [word]) ? 'an ' : 'a ') + word;
  }
  /** A host reply's own key (a key the script put on Object.prototype is not the host's). */
  function own(reply, key) {
    return apply(hasOwnProperty, reply, [key]) ? reply[key] : undefined;
  }
  /** An array no prototype reaches: no index setter, no toJSON. */
  function nullArray() {
    const list = [];
    setPrototypeOf(list, null);
    return list;
  }
  function defineValue(target, key, value) {
    defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }

  // --- rendering a thrown value, with QuickJS's stack under its message ---
  function readString(value, key) {
    if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return undefined;
    try {
      const property = value[key];
      return typeof property === 'string' && property.length > 0 ? property : undefined;
    } catch {
      return undefined;
    }
  }
  function isError(value) {
    try {
      return value instanceof ErrorConstructor;
    } catch {
      return false;
    }
  }
  function isOutOfMemory(error) {
    return InternalErrorConstructor !== undefined && error instanceof InternalErrorConstructor &&
      error.message === 'out of memory';
  }
  function describeFunction(value) {
    const name = readString(value, 'name');
    return name ? '[function ' + name + ']' : '[function]';
  }
  function renderThrown(value) {
    const message = readString(value, 'message');
    const stack = readString(value, 'stack');
    if (isError(value) || message !== undefined || stack !== undefined) {
      const name = readString(value, 'name') || 'Error';
      const head = message !== undefined ? name + ': ' + message : name;
      return stack !== undefined ? head + '\n' + stack : head;
    }
    try {
      return renderOther(value);
    } catch {
      return '<unrenderable thrown value>';
    }
  }

  // --- the value boundary: a fresh JSON value of this realm, or boundary.refuse ---
  function appendPath(path, key) {
    if (typeof key === 'number') return path + '[' + key + ']';
    return apply(regExpTest, /^[A-Za-z_$][\w$]*$/, [key]) ? path + '.' + key : path + '[' + stringify(key) + ']';
  }
  function renderTrail(trail) {
    if (trail.parent === undefined) return toText(trail.key);
    return appendPath(renderTrail(trail.parent), trail.key);
  }
  function attempt(trail, action, operation) {
    try {
      return operation();
    } catch (error) {
      if (boundary.passes(error)) throw error;
      throw boundary.refuse(trail, 'threw', error, action);
    }
  }
  /**
   * The copy has null prototypes throughout, so stringifying it finds no toJSON the script put
   * on a prototype. With maxBytes, boundary.tooLarge as soon as the JSON text would exceed it
   * (an array's smallest text is counted before its items are walked).
   */
  function materialize(value, label, maxBytes) {
    const walk = { ancestors: new MapConstructor(), bytes: 0, maxBytes, label };
    if (value === undefined) return null;
    return copyValue(walk, value, { parent: undefined, key: label }, 0);
  }
  function count(walk, bytes) {
    walk.bytes += bytes;
    if (walk.maxBytes !== undefined && walk.bytes > walk.maxBytes) throw boundary.tooLarge(walk.label, walk.maxBytes);
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
        throw boundary.refuse(trail, 'number', value);
      case 'bigint': case 'symbol': case 'function': case 'undefined':
        throw boundary.refuse(trail, typeof value, value);
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
    if (earlier !== undefined) throw boundary.refuse(trail, 'cycle', value, renderTrail(earlier));
    if (depth >= boundary.maxDepth) throw boundary.refuse(trail, 'depth', value);
    const prototype = attempt(trail, 'reading its prototype', () => getPrototypeOf(value));
    const valueIsArray = attempt(trail, 'inspecting it', () => isArray(value));
    const allowed = prototype === null || prototype === ObjectPrototype || prototype === ArrayPrototype;
    if (!allowed) throw boundary.refuse(trail, 'exotic', value, prototype);
    if (!valueIsArray && isArray(prototype)) throw boundary.refuse(trail, 'array-heir', value);
    const symbols = attempt(trail, 'listing its symbol keys', () =>
      apply(arrayFilter, ownSymbols(value), [(symbol) => apply(propertyIsEnumerable, value, [symbol])]));
    if (symbols.length > 0) throw boundary.refuse(trail, 'symbol-key', value, symbols[0]);
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
      let named;
      for (let index = 0; index < keys.length && named === undefined; index += 1) {
        const key = keys[index];
        if (!apply(regExpTest, /^(0|[1-9]\d*)$/, [key]) || toNumber(key) >= length) named = key;
      }
      throw boundary.refuse({ parent: trail, key: named ?? '' }, 'named-key', value);
    }
    const copy = nullArray();
    for (let index = 0; index < length; index += 1) {
      const child = { parent: trail, key: index };
      if (!apply(hasOwnProperty, value, [index])) throw boundary.refuse(child, 'hole', undefined);
      const element = attempt(child, 'reading it', () => value[index]);
      walk.bytes -= 1;
      defineValue(copy, index, copyValue(walk, element, child, depth + 1));
    }
    return copy;
  }
  function copyPlainObject(walk, value, trail, depth) {
    const copy = objectCreate(null);
    const keys = attempt(trail, 'listing its keys', () => objectKeys(value));
    count(walk, 2 + (keys.length > 0 ? keys.length - 1 : 0));
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index];
      const child = { parent: trail, key };
      const property = attempt(child, 'reading it', () => value[key]);
      if (property === undefined && boundary.omitUndefined) continue;
      count(walk, key.length + 3);
      defineValue(copy, key, copyValue(walk, property, child, depth + 1));
    }
    return copy;
  }
  /** A value's JSON text, through its materialized copy. */
  function toJsonText(value, label, maxBytes) {
    return stringify(materialize(value, label, maxBytes));
  }
  /** The JSON text of a value the engine built: stringified through a null-prototype copy. */
  function jsonText(value) {
    return stringify(detached(value));
  }
  function detached(value) {
    if (typeof value !== 'object' || value === null) return value;
    const copy = isArray(value) ? nullArray() : objectCreate(null);
    const keys = objectKeys(value);
    for (let index = 0; index < keys.length; index += 1) {
      defineValue(copy, keys[index], detached(value[keys[index]]));
    }
    return copy;
  }

  // --- the host-call bridge ---
  /** Asks the host: its value, a promise of a pending host call, or the error it says to throw. */
  function request(op, payloadText) {
    const reply = parse(hostCall(op, payloadText));
    const thrown = own(reply, 't');
    if (thrown !== undefined) throw fatalError(thrown);
    const id = own(reply, 'p');
    if (id === undefined) return own(reply, 'v');
    return handOut(new PromiseConstructor((resolve, reject) => {
      apply(mapSet, pending, [id, { resolve, reject }]);
    }));
  }
  /** An Error with the host's message and, when given, its code. */
  function hostError(failure) {
    const error = new ErrorConstructor(own(failure, 'message'));
    const code = own(failure, 'code');
    if (code !== undefined) defineValue(error, 'code', code);
    return error;
  }
  /**
   * Reports how a completion settles: \`returned\` with \`toText(value)\`, else \`failed(error)\`
   * (which calls the host itself). It awaits rather than calling then(): then() reads the
   * promise's constructor, which the script can replace; with its own constructor the engine's
   * promise is awaited directly.
   */
  async function report(completion, textOf, failed) {
    defineProperty(completion, 'constructor', { value: PromiseConstructor });
    let text;
    try {
      text = textOf(await completion);
    } catch (error) {
      failed(error);
      return;
    }
    hostCall('returned', text);
  }
  const baseInternals = {
    /** Settles a pending host call: {v: value}, {t: error to make} or {e: {message, code}}. */
    settle(id, replyJson) {
      const entry = apply(mapGet, pending, [id]);
      if (entry === undefined) return;
      apply(mapDelete, pending, [id]);
      const reply = parse(replyJson);
      const thrown = own(reply, 't');
      const failure = own(reply, 'e');
      if (thrown !== undefined) entry.reject(fatalError(thrown));
      else if (failure !== undefined) entry.reject(hostError(failure));
      else entry.resolve(own(reply, 'v'));
    },
  };`;
