// A value that readers share made read-only, with everything it holds: one that changed it would
// change it for the others, so a change throws instead (modules run in strict mode).

/** `value`, frozen in place with every object and array it holds. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const held of Object.values(value)) deepFreeze(held);
  }
  return value;
}
