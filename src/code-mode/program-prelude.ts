/**
 * The engine code that runs inside each program's QuickJS realm before the program: `tools`
 * and `console` as thin wrappers over one host function that takes and returns text, the copy
 * of a tool argument out as JSON, and the report of how the program ended. It must never hand
 * the program anything but its own realm's values: the host function and the internals object
 * stay in this closure.
 */

/** The file name the prelude is compiled under; its frames never reach the program's reader. */
export const PROGRAM_ENGINE_FILENAME = 'program-engine.js';

/**
 * A function expression: `(hostCall) => internals`. `hostCall(op, text)` is the only way out:
 * `call` (`[name, argumentsJson]` → the call's index), `console` (a line → `full` once the
 * output cap is reached), `returned` (the value's JSON text, empty for undefined), `failed`
 * (the rendered thrown value). The internals: `setup(toolNamesJson)` defines the globals,
 * `settle(index, answerJson)` answers a call, `watch(completion)` reports how the program ends.
 * Plain ES2020; no TypeScript.
 */
export const PROGRAM_PRELUDE_SOURCE = String.raw`(function (hostCall) {
  'use strict';
  const apply = Reflect.apply;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const getPrototypeOf = Object.getPrototypeOf;
  const objectKeys = Object.keys;
  const ownSymbols = Object.getOwnPropertySymbols;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const isArray = Array.isArray;
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;
  const objectToString = Object.prototype.toString;
  const stringSlice = String.prototype.slice;
  const regExpTest = RegExp.prototype.test;
  const arrayJoin = Array.prototype.join;
  const arrayPush = Array.prototype.push;
  const PromiseConstructor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseReject = Promise.reject;
  const ErrorConstructor = Error;
  const TypeErrorConstructor = TypeError;
  const MapConstructor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const StringConstructor = String;
  const pending = new MapConstructor();
  let outputFull = false;

  function then(promise, onFulfilled, onRejected) {
    return apply(promiseThen, promise, [onFulfilled, onRejected]);
  }
  function readString(value, key) {
    if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return undefined;
    try {
      const property = value[key];
      return typeof property === 'string' ? property : undefined;
    } catch {
      return undefined;
    }
  }
  function safeString(value) {
    try {
      return StringConstructor(value);
    } catch {
      return '[unprintable value]';
    }
  }

  // --- console: strings as they are, other values as JSON where JSON holds them ---
  function isError(value) {
    try {
      return value instanceof ErrorConstructor;
    } catch {
      return false;
    }
  }
  function formatValue(value) {
    switch (typeof value) {
      case 'string': return value;
      case 'undefined': return 'undefined';
      case 'number': case 'boolean': case 'symbol': return safeString(value);
      case 'bigint': return safeString(value) + 'n';
      case 'function': {
        const name = readString(value, 'name');
        return name ? '[function ' + name + ']' : '[function]';
      }
      default: {
        if (value === null) return 'null';
        if (isError(value)) {
          const name = readString(value, 'name') || 'Error';
          const message = readString(value, 'message');
          return message ? name + ': ' + message : name;
        }
        try {
          const text = stringify(value);
          return text === undefined ? safeString(value) : text;
        } catch {
          return safeString(value);
        }
      }
    }
  }
  function write() {
    if (outputFull) return;
    const parts = [];
    for (let index = 0; index < arguments.length; index += 1) {
      apply(arrayPush, parts, [formatValue(arguments[index])]);
    }
    if (hostCall('console', apply(arrayJoin, parts, [' ']) + '\n') === 'full') outputFull = true;
  }
  function consoleMethod(name) {
    const method = function () { apply(write, undefined, arguments); };
    defineProperty(method, 'name', { value: name });
    return method;
  }

  // --- a tool argument out as JSON: only null, booleans, finite numbers, strings, arrays, plain objects ---
  const MAXIMUM_DEPTH = 200;
  function appendPath(path, key) {
    if (typeof key === 'number') return path + '[' + key + ']';
    return apply(regExpTest, /^[A-Za-z_$][\w$]*$/, [key]) ? path + '.' + key : path + '[' + stringify(key) + ']';
  }
  function kindOf(value) {
    let tag = 'Object';
    try { tag = apply(stringSlice, apply(objectToString, value, []), [8, -1]); } catch {}
    if (tag === 'Date') return 'a Date (convert it with toISOString())';
    if (tag === 'Object') return 'an object with a non-plain prototype';
    return (apply(regExpTest, /^[AEIOU]/, [tag]) ? 'an ' : 'a ') + tag;
  }
  function refuse(context, path, problem) {
    return new TypeErrorConstructor(context + ': ' + path + ' is ' + problem +
      '; only JSON values can be passed (null, booleans, finite numbers, strings, arrays, plain objects)');
  }
  function copyJson(context, value, path, ancestors, depth) {
    switch (typeof value) {
      case 'string': case 'boolean': return value;
      case 'number':
        if (value === value && value !== Infinity && value !== -Infinity) return value;
        throw refuse(context, path, safeString(value));
      case 'undefined': throw refuse(context, path, 'undefined');
      case 'function': throw refuse(context, path, 'a function');
      case 'symbol': throw refuse(context, path, 'a symbol');
      case 'bigint': throw refuse(context, path, 'a bigint');
      default: break;
    }
    if (value === null) return null;
    if (apply(mapGet, ancestors, [value]) !== undefined) throw refuse(context, path, 'a cycle');
    if (depth >= MAXIMUM_DEPTH) throw refuse(context, path, 'nested deeper than ' + MAXIMUM_DEPTH + ' levels');
    const prototype = getPrototypeOf(value);
    const array = isArray(value);
    if (array ? prototype !== Array.prototype : prototype !== null && prototype !== Object.prototype) {
      throw refuse(context, path, kindOf(value));
    }
    const symbols = ownSymbols(value);
    for (let index = 0; index < symbols.length; index += 1) {
      if (apply(propertyIsEnumerable, value, [symbols[index]])) throw refuse(context, path, 'an object with a symbol key');
    }
    apply(mapSet, ancestors, [value, true]);
    let copy;
    if (array) {
      copy = [];
      const length = value.length;
      for (let index = 0; index < length; index += 1) {
        const item = apply(hasOwnProperty, value, [index]) ? value[index] : undefined;
        copy[index] = copyJson(context, item, appendPath(path, index), ancestors, depth + 1);
      }
    } else {
      copy = {};
      const keys = objectKeys(value);
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index];
        const item = value[key];
        // An undefined property is left out, as JSON.stringify leaves it out.
        if (item === undefined) continue;
        defineProperty(copy, key, {
          value: copyJson(context, item, appendPath(path, key), ancestors, depth + 1),
          enumerable: true, writable: true, configurable: true,
        });
      }
    }
    apply(mapDelete, ancestors, [value]);
    return copy;
  }

  // --- tools ---
  function makeTool(name) {
    const context = 'tools' + appendPath('', name) + '()';
    const tool = function (args) {
      let text;
      try {
        text = stringify(copyJson(context, args === undefined ? {} : args, 'args', new MapConstructor(), 0));
      } catch (error) {
        return apply(promiseReject, PromiseConstructor, [error]);
      }
      const index = parse(hostCall('call', stringify([name, text])));
      return new PromiseConstructor((resolve, reject) => {
        apply(mapSet, pending, [index, { resolve, reject }]);
      });
    };
    defineProperty(tool, 'name', { value: name });
    return freeze(tool);
  }

  // --- how the program ended ---
  function renderThrown(value) {
    const message = readString(value, 'message');
    const stack = readString(value, 'stack');
    if (isError(value) || message !== undefined) {
      const name = readString(value, 'name') || 'Error';
      const head = message ? name + ': ' + message : name;
      return stack ? head + '\n' + stack : head;
    }
    return formatValue(value);
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
      const kind = typeof value;
      throw new TypeErrorConstructor('the program returned ' + (/^[aeiou]/.test(kind) ? 'an ' : 'a ') + kind + ', which JSON cannot hold; return plain data');
    }
    return text;
  }

  return {
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
    settle(index, answerJson) {
      const entry = apply(mapGet, pending, [index]);
      if (entry === undefined) return;
      apply(mapDelete, pending, [index]);
      const answer = parse(answerJson);
      if (answer.ok) {
        entry.resolve(answer.text);
        return;
      }
      const error = new ErrorConstructor(answer.message);
      if (answer.code !== undefined) {
        defineProperty(error, 'code', { value: answer.code, enumerable: true, writable: true, configurable: true });
      }
      entry.reject(error);
    },
    watch(completion) {
      then(completion, (value) => {
        let text;
        try {
          text = returned(value);
        } catch (error) {
          hostCall('failed', renderThrown(error));
          return;
        }
        hostCall('returned', text);
      }, (error) => {
        hostCall('failed', renderThrown(error));
      });
    },
  };
})`;
