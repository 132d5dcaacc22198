/**
 * Freezes a JSON-like value and everything inside it, in place, so data that many holders share
 * (tool schemas, prompt blobs) cannot be changed by one of them. Returns the value. A frozen
 * object is taken as frozen all the way down and not walked again.
 */
export function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
