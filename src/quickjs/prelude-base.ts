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
  const hasOwn = Object.hasOwn;
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
    return hasOwn(reply, key) ? reply[key] : undefined;
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
  function unreadable(trail, action, error) {
    if (boundary.passes(error)) return error;
    return boundary.refuse(trail, 'threw', error, action);
  }
  /**
   * The copy has null prototypes throughout, so stringifying it finds no toJSON the script put
   * on a prototype. With maxBytes, boundary.tooLarge as soon as the JSON text would exceed it
   * (an array's smallest text is counted before its items are walked). A trail ({parent, key})
   * is made only where an object is entered or a value refused: leaves cost no allocation.
   */
  function materialize(value, label, maxBytes) {
    const walk = { ancestors: new MapConstructor(), bytes: 0, limit: maxBytes ?? Infinity, label };
    if (value === undefined) return null;
    return copyValue(walk, value, undefined, label, 0);
  }
  function tooLarge(walk) {
    return boundary.tooLarge(walk.label, walk.limit);
  }
  function copyValue(walk, value, parent, key, depth) {
    switch (typeof value) {
      case 'string':
        if ((walk.bytes += value.length + 2) > walk.limit) throw tooLarge(walk);
        return value;
      case 'boolean':
        if ((walk.bytes += value ? 4 : 5) > walk.limit) throw tooLarge(walk);
        return value;
      case 'number':
        if (value !== value || value === Infinity || value === -Infinity) {
          throw boundary.refuse({ parent, key }, 'number', value);
        }
        // Only a limited walk pays for the number's text.
        if (walk.limit !== Infinity && (walk.bytes += toText(value).length) > walk.limit) throw tooLarge(walk);
        return value;
      case 'bigint': case 'symbol': case 'function': case 'undefined':
        throw boundary.refuse({ parent, key }, typeof value, value);
      default:
        if (value === null) {
          if ((walk.bytes += 4) > walk.limit) throw tooLarge(walk);
          return null;
        }
        return copyObject(walk, value, { parent, key }, depth);
    }
  }
  function copyObject(walk, value, trail, depth) {
    const earlier = apply(mapGet, walk.ancestors, [value]);
    if (earlier !== undefined) throw boundary.refuse(trail, 'cycle', value, renderTrail(earlier));
    if (depth >= boundary.maxDepth) throw boundary.refuse(trail, 'depth', value);
    let prototype;
    let valueIsArray;
    let symbols;
    let action = 'reading its prototype';
    try {
      prototype = getPrototypeOf(value);
      action = 'inspecting it';
      valueIsArray = isArray(value);
      action = 'listing its symbol keys';
      symbols = ownSymbols(value);
    } catch (error) {
      throw unreadable(trail, action, error);
    }
    const allowed = prototype === null || prototype === ObjectPrototype || prototype === ArrayPrototype;
    if (!allowed) throw boundary.refuse(trail, 'exotic', value, prototype);
    if (!valueIsArray && isArray(prototype)) throw boundary.refuse(trail, 'array-heir', value);
    for (let index = 0; index < symbols.length; index += 1) {
      if (apply(propertyIsEnumerable, value, [symbols[index]])) throw boundary.refuse(trail, 'symbol-key', value, symbols[index]);
    }
    apply(mapSet, walk.ancestors, [value, trail]);
    const copy = valueIsArray ? copyArray(walk, value, trail, depth) : copyPlainObject(walk, value, trail, depth);
    apply(mapDelete, walk.ancestors, [value]);
    return copy;
  }
  function readKeys(value, trail) {
    try {
      return objectKeys(value);
    } catch (error) {
      throw unreadable(trail, 'listing its keys', error);
    }
  }
  function read(value, key, trail) {
    try {
      return value[key];
    } catch (error) {
      throw unreadable({ parent: trail, key }, 'reading it', error);
    }
  }
  function copyArray(walk, value, trail, depth) {
    const length = value.length;
    // "[]", the commas, and at least one character per item: refused before a long walk.
    if ((walk.bytes += 2 + (length > 0 ? 2 * length - 1 : 0)) > walk.limit) throw tooLarge(walk);
    walk.bytes -= length;
    const keys = readKeys(value, trail);
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
      if (!apply(hasOwnProperty, value, [index])) throw boundary.refuse({ parent: trail, key: index }, 'hole', undefined);
      const element = read(value, index, trail);
      walk.bytes -= 1;
      // No prototype, so no setter: a plain assignment defines the index.
      copy[index] = copyValue(walk, element, trail, index, depth + 1);
    }
    return copy;
  }
  function copyPlainObject(walk, value, trail, depth) {
    const copy = objectCreate(null);
    const keys = readKeys(value, trail);
    if ((walk.bytes += 2 + (keys.length > 0 ? keys.length - 1 : 0)) > walk.limit) throw tooLarge(walk);
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index];
      const property = read(value, key, trail);
      if (property === undefined && boundary.omitUndefined) continue;
      if ((walk.bytes += key.length + 3) > walk.limit) throw tooLarge(walk);
      // No prototype, so no __proto__ setter: a plain assignment defines an own key.
      copy[key] = copyValue(walk, property, trail, key, depth + 1);
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
  /**
   * Asks the host: its value, a promise of a pending host call, or the error it says to throw.
   * With handedOut, the promise is marked handled (a script may drop it without a rejection
   * going unheard).
   */
  function request(op, payloadText, handedOut) {
    const reply = parse(hostCall(op, payloadText));
    const id = own(reply, 'p');
    if (id !== undefined) {
      const promise = new PromiseConstructor((resolve, reject) => {
        apply(mapSet, pending, [id, { resolve, reject }]);
      });
      return handedOut ? handOut(promise) : promise;
    }
    const thrown = own(reply, 't');
    if (thrown !== undefined) throw fatalError(thrown);
    return own(reply, 'v');
  }
  /** An Error with the host's message and, when given, its code. */
  function hostError(failure) {
    const error = new ErrorConstructor(own(failure, 'message'));
    const code = own(failure, 'code');
    if (code !== undefined) defineValue(error, 'code', code);
    return error;
  }
  /**
   * Reports how a completion settles: returned with textOf(value), else failed(error)
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
