import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APIStatusError } from '../errors.js';
import type { ProviderProblem } from '../providers/common.js';
import { drain, scriptedSource, settle } from '../test-support/scripted-source.js';
import { VirtualClock } from '../time/virtual-clock.js';
import { retryBeforeFirstItem } from './retry-stream.js';

const exact = { jitter: 0 };

describe('retryBeforeFirstItem', () => {
  it('retries a failure before the first item with backoff on the clock, and reports it', async () => {
    const clock = new VirtualClock();
    const dropped = new APIConnectionError('reset');
    const source = scriptedSource<string>(clock, [
      [{ waitMs: 30 }, { fail: dropped }],
      [{ waitMs: 10 }, { item: 'Hel' }, { item: 'lo' }],
    ]);
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(
      retryBeforeFirstItem(source.open, { clock, policy: exact, onProblem: (p) => problems.push(p) }),
    );
    expect(error).toBeUndefined();
    expect(items).toEqual(['Hel', 'lo']);
    expect(problems).toEqual([{ type: 'retrying', attempt: 1, delayMs: 100, error: dropped }]);
    expect(clock.now()).toBe(30 + 100 + 10);
    expect(source.signals).toHaveLength(2);
  });

  it('never retries once an item was yielded, so nothing is repeated', async () => {
    const clock = new VirtualClock();
    const midStream = new APIStatusError('server error mid-stream', { statusCode: 500 });
    const source = scriptedSource<string>(clock, [[{ item: 'one' }, { waitMs: 5 }, { fail: midStream }]]);
    const problems: ProviderProblem[] = [];
    const { items, error } = await drain(
      retryBeforeFirstItem(source.open, { clock, policy: exact, onProblem: (p) => problems.push(p) }),
    );
    expect(items).toEqual(['one']);
    expect(error).toBe(midStream);
    expect(source.signals).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('surfaces errors that are not retryable, and the last one once retries are spent', async () => {
    const clock = new VirtualClock();
    const denied = new APIStatusError('unauthorized', { statusCode: 401 });
    const once = scriptedSource<string>(clock, [[{ fail: denied }]]);
    expect((await drain(retryBeforeFirstItem(once.open, { clock }))).error).toBe(denied);
    expect(once.signals).toHaveLength(1);

    const busy = scriptedSource<string>(clock, [[{ fail: new APIError('overloaded') }]]);
    const { error } = await drain(retryBeforeFirstItem(busy.open, { clock, policy: { maxRetries: 2 } }));
    expect(error).toMatchObject({ message: 'overloaded' });
    expect(busy.signals).toHaveLength(3);
  });

  it('honours retry-after and surfaces a wait longer than maxRetryAfterMs', async () => {
    const clock = new VirtualClock();
    const limited = (seconds: string): APIStatusError =>
      new APIStatusError('429', {
        statusCode: 429,
        cause: { headers: new Headers({ 'retry-after': seconds }) },
      });
    const source = scriptedSource<string>(clock, [[{ fail: limited('2') }], [{ item: 'ok' }]]);
    const { items } = await drain(retryBeforeFirstItem(source.open, { clock, policy: exact }));
    expect(items).toEqual(['ok']);
    expect(clock.now()).toBe(2_000);

    const tooLong = limited('120');
    const refused = scriptedSource<string>(clock, [[{ fail: tooLong }], [{ item: 'never' }]]);
    const outcome = await drain(retryBeforeFirstItem(refused.open, { clock, policy: exact }));
    expect(outcome.error).toBe(tooLong);
    expect(refused.signals).toHaveLength(1);
    expect(clock.now()).toBe(2_000);
  });

  it('ends quietly when aborted during a backoff, leaving no timer', async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    const source = scriptedSource<string>(clock, [[{ fail: new APIConnectionError() }]]);
    clock.setTimer(50, () => caller.abort());
    const { items, error } = await drain(
      retryBeforeFirstItem(source.open, { clock, signal: caller.signal, policy: exact }),
    );
    expect({ items, error }).toEqual({ items: [], error: undefined });
    expect(clock.now()).toBe(50);
    expect(clock.pendingTimers).toBe(0);
    expect(source.signals).toHaveLength(1);
  });

  it('ends quietly on abort even when the attempt ignores its signal, and aborts that signal', async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    const source = scriptedSource<string>(clock, [[{ item: 'first' }, { hang: true }]]);
    const items: string[] = [];
    for await (const item of retryBeforeFirstItem(source.open, { clock, signal: caller.signal })) {
      items.push(item);
      caller.abort();
    }
    expect(items).toEqual(['first']);
    expect(source.signals[0]!.aborted).toBe(true);
  });

  it('swallows what an attempt throws because the caller aborted', async () => {
    const clock = new VirtualClock();
    const caller = new AbortController();
    clock.setTimer(20, () => caller.abort(new Error('barge-in')));
    const source = scriptedSource<string>(clock, [[{ item: 'a' }, { waitMs: 1_000 }, { item: 'b' }]]);
    const { items, error } = await drain(retryBeforeFirstItem(source.open, { clock, signal: caller.signal }));
    expect({ items, error }).toEqual({ items: ['a'], error: undefined });
  });

  it('stops the attempt when the consumer breaks, and releases every attempt signal', async () => {
    const clock = new VirtualClock();
    const source = scriptedSource<string>(clock, [
      [{ fail: new APIConnectionError() }],
      [{ item: 'a' }, { item: 'b' }, { item: 'c' }],
    ]);
    for await (const item of retryBeforeFirstItem(source.open, { clock, policy: exact })) {
      if (item === 'a') break;
    }
    await settle();
    expect(source.signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(source.cleanups()).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('passes the attempt number and starts nothing under an aborted signal', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    const stream = retryBeforeFirstItem(
      async function* (attempt) {
        seen.push(attempt);
        if (attempt < 2) throw new APIConnectionError();
        yield attempt;
      },
      { clock, policy: exact },
    );
    expect((await drain(stream)).items).toEqual([2]);
    expect(seen).toEqual([0, 1, 2]);
    const none = await drain(
      retryBeforeFirstItem(
        async function* () {
          seen.push(-1);
          yield 0;
        },
        { clock, signal: AbortSignal.abort() },
      ),
    );
    expect(none).toEqual({ items: [], error: undefined });
    expect(seen).toEqual([0, 1, 2]);
  });
});
