import { describe, expect, it } from 'vitest';
import { type SpeechHandleInit, SpeechHandle, SpeechPriority } from './speech-handle.js';
import { type OutputGrant, SpeechScheduler } from './speech-scheduler.js';

/** The scheduler with its decisions recorded in order. */
function rig() {
  const log: string[] = [];
  /** What the scheduler told the activity state: speeches holding the output. */
  const underWay = new Set<SpeechHandle>();
  const scheduler = new SpeechScheduler({
    reporter: {
      trace: (record) => {
        if (record.type === 'speech_queued') log.push(`queued ${record.speechId}`);
        if (record.type === 'speech_authorized') log.push(`granted ${record.speechId}#${record.step}`);
        if (record.type === 'speech_released') log.push(`released ${record.speechId}#${record.step}`);
      },
    },
    activity: {
      speechAuthorized: (handle) => underWay.add(handle),
      speechReleased: (handle) => underWay.delete(handle),
    },
  });
  const granted: string[] = [];
  /** Requests a step and records the grant (or its refusal) when it resolves. */
  const request = (handle: SpeechHandle, step = 1): Promise<OutputGrant | undefined> => {
    const pending = scheduler.request(handle, step);
    void pending.then((grant) =>
      granted.push(grant ? `${grant.handle.id}#${grant.step}` : `${handle.id}:none`),
    );
    return pending;
  };
  return { scheduler, log, granted, request, underWay };
}

let count = 0;
function speech(
  options: { priority?: number; thread?: number; source?: SpeechHandleInit['source'] } = {},
): SpeechHandle {
  const handle = new SpeechHandle({
    id: `s${++count}`,
    allowInterruptions: true,
    source: options.source ?? 'say',
    priority: options.priority ?? SpeechPriority.normal,
  });
  handle.threadSeq = options.thread ?? count;
  return handle;
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SpeechScheduler: one step holds the output', () => {
  it('grants at once when idle, and the next request waits for the release', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    const grantA = await r.request(a);
    expect(r.scheduler.current).toBe(a);
    void r.request(b);
    await flush();
    expect(r.granted).toEqual([`${a.id}#1`]);
    expect(r.scheduler.queuedHandles).toEqual([b]);
    expect(r.scheduler.idle).toBe(false);
    grantA!.release();
    await flush();
    expect(r.granted).toEqual([`${a.id}#1`, `${b.id}#1`]);
    expect(r.scheduler.current).toBe(b);
    expect(r.log).toEqual([
      `queued ${a.id}`,
      `granted ${a.id}#1`,
      `queued ${b.id}`,
      `released ${a.id}#1`,
      `granted ${b.id}#1`,
    ]);
  });

  it('a second release of the same grant does nothing', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    const c = speech();
    const grantA = await r.request(a);
    void r.request(b);
    grantA!.release();
    await flush();
    void r.request(c);
    grantA!.release();
    await flush();
    expect(r.scheduler.current).toBe(b);
    expect(r.granted).toEqual([`${a.id}#1`, `${b.id}#1`]);
    expect(r.log.filter((l) => l.startsWith('released'))).toEqual([`released ${a.id}#1`]);
  });

  it('is idle again once the last grant is released', async () => {
    const r = rig();
    expect(r.scheduler.idle).toBe(true);
    const grant = await r.request(speech());
    expect(r.scheduler.idle).toBe(false);
    grant!.release();
    expect(r.scheduler.idle).toBe(true);
    expect(r.scheduler.current).toBeUndefined();
  });
});

describe('SpeechScheduler: order', () => {
  it('grants the highest priority first, then the older thread, then request order', async () => {
    const r = rig();
    const holder = speech({ thread: 1 });
    let grant = await r.request(holder);
    const low = speech({ priority: SpeechPriority.low, thread: 2 });
    const normalNewThread = speech({ thread: 9 });
    const normalOldThread = speech({ thread: 3 });
    const normalOldThreadLater = speech({ thread: 3 });
    const high = speech({ priority: SpeechPriority.high, thread: 10 });
    const pending = new Map<SpeechHandle, Promise<OutputGrant | undefined>>();
    for (const h of [low, normalNewThread, normalOldThread, normalOldThreadLater, high]) {
      pending.set(h, r.request(h));
    }
    const expected = [high, normalOldThread, normalOldThreadLater, normalNewThread, low];
    expect(r.scheduler.queuedHandles).toEqual(expected);
    const order: SpeechHandle[] = [];
    while (grant) {
      grant.release();
      const next = r.scheduler.current;
      if (!next) break;
      order.push(next);
      grant = await pending.get(next);
    }
    expect(order).toEqual(expected);
  });
});

describe('SpeechScheduler: skipping speeches that cannot play', () => {
  it('drops a queued speech that is interrupted, and the next one plays', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    const c = speech();
    const grantA = await r.request(a);
    const pendingB = r.request(b);
    void r.request(c);
    b.requestInterrupt('api', false);
    expect(await pendingB).toBeUndefined();
    expect(r.scheduler.queuedHandles).toEqual([c]);
    grantA!.release();
    await flush();
    expect(r.scheduler.current).toBe(c);
  });

  it('drops a queued speech that ends (fails) while waiting', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    await r.request(a);
    const pendingB = r.request(b);
    b.markDone('failed', new Error('tts down'));
    expect(await pendingB).toBeUndefined();
    expect(r.scheduler.queuedHandles).toEqual([]);
  });

  it('refuses at once a speech already interrupted or done', async () => {
    const r = rig();
    const cut = speech();
    cut.requestInterrupt('api', false);
    const done = speech();
    done.markDone('played');
    expect(await r.request(cut)).toBeUndefined();
    expect(await r.request(done)).toBeUndefined();
    expect(r.log).toEqual([]);
    expect(r.scheduler.idle).toBe(true);
  });

  it('a speech interrupted after its grant is not dropped by that interrupt; its release still frees the output', async () => {
    const r = rig();
    const a = speech();
    const b = speech();
    const grantA = await r.request(a);
    void r.request(b);
    a.requestInterrupt('api', false);
    await flush();
    expect(r.scheduler.current).toBe(a);
    grantA!.release();
    await flush();
    expect(r.scheduler.current).toBe(b);
  });

  it('close() refuses every queued and later request', async () => {
    const r = rig();
    const a = speech();
    await r.request(a);
    const pending = r.request(speech());
    r.scheduler.close();
    expect(await pending).toBeUndefined();
    expect(await r.request(speech())).toBeUndefined();
    expect(r.scheduler.queuedHandles).toEqual([]);
  });
});

describe('SpeechScheduler: reserving the place of a speech whose tools run', () => {
  it('holds back replies to newer user turns, not speeches of its own or older threads', async () => {
    const r = rig();
    const replying = speech({ thread: 5, source: 'user_turn' });
    const grant = await r.request(replying);
    grant!.release();
    r.scheduler.reserve(replying);
    const newerTurn = speech({ thread: 6, source: 'user_turn' });
    const ownSay = speech({ thread: 5, source: 'say' });
    const pendingNewer = r.request(newerTurn);
    await flush();
    expect(r.scheduler.current).toBeUndefined();
    expect(r.scheduler.queuedHandles).toEqual([newerTurn]);
    // A tool's say in the same thread (not a user-turn reply) plays at once.
    const ownGrant = await r.request(ownSay);
    expect(ownGrant?.handle).toBe(ownSay);
    ownGrant!.release();
    await flush();
    expect(r.scheduler.current).toBeUndefined();
    // The reserved speech asks for its next step: it plays before the newer turn.
    const next = await r.request(replying, 2);
    expect(next?.step).toBe(2);
    next!.release();
    expect((await pendingNewer)?.handle).toBe(newerTurn);
  });

  it('holds back only replies to user turns: an app reply or a task speech of a newer thread plays', async () => {
    for (const source of ['generate_reply', 'agent_task', 'tool_response', 'say'] as const) {
      const r = rig();
      r.scheduler.reserve(speech({ thread: 1, source: 'user_turn' }));
      const newer = speech({ thread: 2, source });
      expect((await r.request(newer))?.handle).toBe(newer);
    }
  });

  it('does not hold back a user-turn reply of the same thread', async () => {
    const r = rig();
    const replying = speech({ thread: 5, source: 'user_turn' });
    r.scheduler.reserve(replying);
    const sameThread = speech({ thread: 5, source: 'user_turn' });
    expect((await r.request(sameThread))?.handle).toBe(sameThread);
  });

  it('ends the reservation when the reserved speech is interrupted or ends', async () => {
    for (const end of [
      (h: SpeechHandle) => h.requestInterrupt('api', false),
      (h: SpeechHandle) => h.markDone('played'),
    ]) {
      const r = rig();
      const replying = speech({ thread: 1, source: 'user_turn' });
      r.scheduler.reserve(replying);
      const newer = speech({ thread: 2, source: 'user_turn' });
      const pending = r.request(newer);
      await flush();
      expect(r.scheduler.current).toBeUndefined();
      end(replying);
      expect((await pending)?.handle).toBe(newer);
    }
  });

  it('skips a held-back request to grant a later one that may play', async () => {
    const r = rig();
    const replying = speech({ thread: 1, source: 'user_turn' });
    r.scheduler.reserve(replying);
    const newerTurn = speech({ thread: 2, source: 'user_turn' });
    const say = speech({ thread: 3, source: 'say' });
    void r.request(newerTurn);
    const grant = await r.request(say);
    expect(grant?.handle).toBe(say);
    expect(r.scheduler.queuedHandles).toEqual([newerTurn]);
  });

  it('does not reserve a speech already interrupted or done', async () => {
    const r = rig();
    const cut = speech({ thread: 1, source: 'user_turn' });
    cut.requestInterrupt('api', false);
    r.scheduler.reserve(cut);
    const newer = speech({ thread: 2, source: 'user_turn' });
    expect((await r.request(newer))?.handle).toBe(newer);
  });
});
