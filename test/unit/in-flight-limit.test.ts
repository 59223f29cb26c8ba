import { describe, expect, it } from 'vitest';
import type { PostOutcome } from '@/server/delivery/http-client';
import { answerOf, InFlightLimit } from '@/server/delivery/in-flight-limit';

const response = (status: number, durationMs: number): PostOutcome => ({ kind: 'response', status, headers: {}, body: '', durationMs });

describe('an answer, as the in-flight limit reads it', () => {
  it('is fast for a 2xx within 250 ms, steady up to 1 s, struggling past that or for anything not a 2xx', () => {
    expect(answerOf(response(200, 5))).toBe('fast');
    expect(answerOf(response(204, 250))).toBe('fast');
    expect(answerOf(response(200, 251))).toBe('steady');
    expect(answerOf(response(200, 1000))).toBe('steady');
    expect(answerOf(response(200, 1001))).toBe('struggling');
    expect(answerOf(response(500, 5))).toBe('struggling');
    expect(answerOf(response(429, 5))).toBe('struggling');
    expect(answerOf(response(302, 5))).toBe('struggling');
    expect(answerOf({ kind: 'error', errorKind: 'timeout', message: 'timed out', durationMs: 10_000 })).toBe('struggling');
    expect(answerOf(undefined)).toBe('struggling');
  });
});

describe("a subscription's in-flight limit", () => {
  it('grows by one after as many fast answers as the limit, only while attempts wait, and never past the max', () => {
    const limit = new InFlightLimit(10, 13);
    for (let i = 0; i < 100; i++) limit.answered('fast', false);
    expect(limit.value).toBe(10);
    for (let i = 0; i < 9; i++) limit.answered('fast', true);
    expect(limit.value).toBe(10);
    limit.answered('fast', true);
    expect(limit.value).toBe(11);
    for (let i = 0; i < 11; i++) limit.answered('fast', true);
    expect(limit.value).toBe(12);
    for (let i = 0; i < 1000; i++) limit.answered('fast', true);
    expect(limit.value).toBe(13);
  });

  it('holds on steady answers, and halves on a struggling one, never below the base', () => {
    const limit = new InFlightLimit(4, 64);
    while (limit.value < 40) limit.answered('fast', true);
    for (let i = 0; i < 100; i++) limit.answered('steady', true);
    expect(limit.value).toBe(40);
    limit.answered('struggling', true);
    expect(limit.value).toBe(20);
    limit.answered('struggling', false);
    expect(limit.value).toBe(10);
    limit.answered('struggling', true);
    limit.answered('struggling', true);
    expect(limit.value).toBe(4);
    expect(limit.atBase).toBe(true);
  });

  it("halves toward the base while the worker's connections to the origin are all busy, even on fast answers", () => {
    const limit = new InFlightLimit(10, 64);
    while (limit.value < 40) limit.answered('fast', true);
    limit.answered('fast', false, { crowded: true });
    expect(limit.value).toBe(20);
    limit.answered('fast', false, { crowded: true });
    limit.answered('fast', false, { crowded: true });
    expect(limit.value).toBe(10);
  });

  it('starts the count again after a struggling answer', () => {
    const limit = new InFlightLimit(10, 64);
    for (let i = 0; i < 9; i++) limit.answered('fast', true);
    limit.answered('struggling', true);
    for (let i = 0; i < 9; i++) limit.answered('fast', true);
    expect(limit.value).toBe(10);
  });

  it('keeps a max below the base as the bound', () => {
    const limit = new InFlightLimit(10, 4);
    expect(limit.value).toBe(4);
    for (let i = 0; i < 100; i++) limit.answered('fast', true);
    limit.answered('struggling', true);
    expect(limit.value).toBe(4);
  });
});
