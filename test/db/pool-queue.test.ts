import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The third hunk of patches/postgres+3.4.9.patch. postgres.js keeps its connections in queues (open, busy, ...)
// whose shift() leaves the taken slot behind and empties the array only when the last entry is taken. Under
// steady load the busy queue is never empty at a shift: every statement put another slot behind, and every
// move of a connection (remove(), a scan from the start) read them all. 50 clients over a pool of 10 grew it to
// 91,858 slots in 5 s, at 45 us of client CPU a statement; patched, 26 us (bench notes, docs/benchmarks.md).

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T;
  remove(x: T): T | null;
}
type QueueOf = <T>(initial?: T[]) => Queue<T>;

// The package's exports name neither copy; both are read from its directory (src/ for import, cjs/ for require).
const require = createRequire(import.meta.url);
const cjsDir = path.dirname(require.resolve('postgres'));
const copies: [string, QueueOf][] = [
  ['cjs/src/queue.js', require(path.join(cjsDir, 'queue.js')) as QueueOf],
  ['src/queue.js', ((await import(pathToFileURL(path.join(cjsDir, '../../src/queue.js')).href)) as { default: QueueOf }).default],
];

/** Counts the slots remove() reads: the queue's array is made from `initial`, so it is this class. */
class CountingArray<T> extends Array<T> {
  static read = 0;
  override indexOf(x: T, from = 0): number {
    CountingArray.read += Math.max(0, this.length - from);
    return super.indexOf(x, from);
  }
}

describe.each(copies)('postgres.js %s', (_file, Queue) => {
  it('reads only the queued entries when a connection moves, however long the queue has been busy', () => {
    const connections = Array.from({ length: 10 }, (_, i) => ({ id: i }));
    const busy = Queue(CountingArray.from(connections));
    CountingArray.read = 0;
    const statements = 100_000;
    for (let i = 0; i < statements; i++) {
      // What the pool does for a statement while every connection is busy: take the next, pipeline onto it,
      // move it to the back (remove() first, which finds nothing: it was shifted out).
      const c = busy.shift();
      expect(busy.remove(c)).toBeNull();
      busy.push(c);
      if (i % 1000 === 0) {
        // One going idle (a scan that finds it) and taking work again.
        expect(busy.remove(c)).toBe(c);
        busy.push(c);
      }
    }
    expect(busy.length).toBe(10);
    // Unpatched: half the statements so far, on average (about 50,000 slots a statement).
    expect(CountingArray.read / statements).toBeLessThan(30);
  });

  it('stays first in, first out', () => {
    const q = Queue<number>([]);
    for (let i = 0; i < 5000; i++) q.push(i);
    const out: number[] = [];
    for (let i = 0; i < 3000; i++) out.push(q.shift());
    expect(q.remove(2999)).toBeNull();
    expect(q.remove(4000)).toBe(4000);
    while (q.length) out.push(q.shift());
    expect(out).toEqual([...Array.from({ length: 4000 }, (_, i) => i), ...Array.from({ length: 999 }, (_, i) => 4001 + i)]);
  });
});
