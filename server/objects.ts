/**
 * `{ ...base, ...extra }`, built the way V8 builds fast. Node 20's V8 extends an object literal that starts with a spread
 * and goes on (`{ ...ctx, read: db }`) in its runtime: 1.9-2.8 us a call in a loop, against 0.1-0.2 us for Object.assign
 * onto a fresh literal. Under load it cost more: a partner answer's headers built as `{ ...a, ...b }` took ~18 us of the
 * main thread's CPU a request (GET /partner/event-types, lean: 93 -> 75 us of user time without it). For paths that run
 * per request or per delivery; elsewhere the spread reads better and costs nothing that shows.
 */
export function extended<A extends object, B extends object>(base: A, extra: B): Omit<A, keyof B> & B {
  return Object.assign({}, base, extra);
}
