import { ChannelClosedError } from '../errors.js';
import { abortReason } from '../time/clock.js';

/**
 * What a full channel does with one more item:
 * - `drop-oldest`: discard the oldest queued item (counted in `droppedCount`) and keep the new one;
 * - `drop-newest`: discard the new item (counted);
 * - `block`: `send()` waits for room (back-pressure); `trySend()` refuses.
 */
export type OverflowPolicy = 'drop-oldest' | 'drop-newest' | 'block';

export interface ChannelOptions {
  /** Maximum queued items. Must be at least 1. */
  capacity: number;
  overflow: OverflowPolicy;
  /** Shows up in error messages and metrics. */
  name?: string;
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A bounded single-consumer async queue: the one stream abstraction of the core. It never grows past
 * its capacity, never keeps a listener or a promise after close, and reports every drop.
 */
export class Channel<T> implements AsyncIterable<T> {
  readonly capacity: number;
  readonly overflow: OverflowPolicy;
  readonly name: string;
  private buffer: T[] = [];
  private head = 0;
  private receivers: Array<Waiter<IteratorResult<T>>> = [];
  private senders: Array<Waiter<void> & { item: T }> = [];
  private state: 'open' | 'closed' | 'failed' = 'open';
  private failure: unknown;
  private dropped = 0;

  constructor(options: ChannelOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1) {
      throw new RangeError(`Channel capacity must be a positive integer, got ${options.capacity}`);
    }
    this.capacity = options.capacity;
    this.overflow = options.overflow;
    this.name = options.name ?? 'channel';
  }

  /** Items waiting to be received. */
  get size(): number {
    return this.buffer.length - this.head;
  }

  /** Items discarded because the channel was full. */
  get droppedCount(): number {
    return this.dropped;
  }

  /** True once `close()` or `fail()` was called. Queued items may still be received. */
  get closed(): boolean {
    return this.state !== 'open';
  }

  /**
   * Offers an item without waiting. Returns false when the item was not queued: the channel is closed,
   * or full under `drop-newest` / `block`.
   */
  trySend(item: T): boolean {
    if (this.state !== 'open') return false;
    const receiver = this.receivers.shift();
    if (receiver) {
      settleWaiter(receiver);
      receiver.resolve({ value: item, done: false });
      return true;
    }
    if (this.size < this.capacity) {
      this.buffer.push(item);
      return true;
    }
    switch (this.overflow) {
      case 'drop-oldest':
        this.shift();
        this.buffer.push(item);
        this.dropped++;
        return true;
      case 'drop-newest':
        this.dropped++;
        return false;
      case 'block':
        return false;
    }
  }

  /**
   * Sends an item. Under `block`, waits for room; under the drop policies it never waits. Rejects with
   * `ChannelClosedError` when the channel is closed (or closes while waiting), or with the signal's reason.
   */
  send(item: T, signal?: AbortSignal): Promise<void> {
    if (this.state !== 'open') return Promise.reject(new ChannelClosedError(this.name));
    if (this.overflow !== 'block' || this.size < this.capacity || this.receivers.length > 0) {
      this.trySend(item);
      return Promise.resolve();
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter = { item, resolve, reject, signal, onAbort: undefined as (() => void) | undefined };
      if (signal) {
        waiter.onAbort = () => {
          remove(this.senders, waiter);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.senders.push(waiter);
    });
  }

  /** Receives the next item; `done` once the channel is closed and drained. Rejects if it failed. */
  receive(signal?: AbortSignal): Promise<IteratorResult<T>> {
    if (this.size > 0) {
      const value = this.shift();
      this.admitBlockedSender();
      return Promise.resolve({ value, done: false });
    }
    if (this.state === 'failed') return Promise.reject(this.failure);
    if (this.state === 'closed') return Promise.resolve({ value: undefined, done: true });
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter<IteratorResult<T>> = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          remove(this.receivers, waiter);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.receivers.push(waiter);
    });
  }

  /** Ends the channel: queued items can still be received, then iteration finishes. */
  close(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.releaseWaiters();
  }

  /** Ends the channel with an error: receivers get it once the queue is drained. */
  fail(error: unknown): void {
    if (this.state !== 'open') return;
    this.state = 'failed';
    this.failure = error;
    this.releaseWaiters();
  }

  /** Closes and discards everything queued: for consumers that are gone. */
  dispose(): void {
    this.close();
    this.buffer = [];
    this.head = 0;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.receive(),
      return: async () => {
        this.dispose();
        return { value: undefined, done: true };
      },
    };
  }

  private releaseWaiters(): void {
    const receivers = this.receivers;
    this.receivers = [];
    for (const r of receivers) {
      settleWaiter(r);
      if (this.state === 'failed') r.reject(this.failure);
      else r.resolve({ value: undefined, done: true });
    }
    const senders = this.senders;
    this.senders = [];
    for (const s of senders) {
      settleWaiter(s);
      s.reject(new ChannelClosedError(this.name));
    }
  }

  private admitBlockedSender(): void {
    const sender = this.senders.shift();
    if (!sender) return;
    settleWaiter(sender);
    this.buffer.push(sender.item);
    sender.resolve();
  }

  private shift(): T {
    const value = this.buffer[this.head] as T;
    (this.buffer as Array<T | undefined>)[this.head] = undefined;
    this.head++;
    if (this.head === this.buffer.length) {
      // Empty: the common case for a consumer that keeps up, and the cheapest moment to reset.
      this.buffer.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.buffer.length) {
      // Compact lazily so a long-lived channel neither leaks slots nor copies on every receive.
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
    return value;
  }
}

function settleWaiter(waiter: { signal: AbortSignal | undefined; onAbort: (() => void) | undefined }): void {
  if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
}

function remove<W>(list: W[], item: W): void {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}
