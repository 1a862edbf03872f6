import { Channel, type ChannelOptions } from './channel.js';

/**
 * A subscriber's bounds. `block` is not offered: `publish()` is synchronous, so a full subscriber could
 * only lose items without counting them, or stall every other subscriber with it.
 */
export interface BroadcastSubscriberOptions extends Omit<ChannelOptions, 'overflow'> {
  overflow: 'drop-oldest' | 'drop-newest';
}

/**
 * Fans one producer out to many consumers, each with its own bounded channel. A slow consumer drops
 * only its own items (by its own policy, counted in its `droppedCount`); a consumer that stops
 * iterating is unsubscribed, so nothing is retained for it. This replaces `tee()`, whose branches
 * buffer without bound.
 */
export class Broadcast<T> {
  private readonly subscribers = new Set<Channel<T>>();
  private ended: { error: unknown } | 'closed' | undefined;

  subscribe(options: BroadcastSubscriberOptions): Channel<T> {
    const overflow: string = options.overflow;
    if (overflow !== 'drop-oldest' && overflow !== 'drop-newest') {
      throw new TypeError(
        `Broadcast subscribers must drop when full ('drop-oldest' or 'drop-newest'), got '${overflow}'`,
      );
    }
    const channel = new Channel<T>(options);
    if (this.ended === 'closed') channel.close();
    else if (this.ended) channel.fail(this.ended.error);
    else this.subscribers.add(channel);
    return channel;
  }

  unsubscribe(channel: Channel<T>): void {
    this.subscribers.delete(channel);
    channel.dispose();
  }

  /** Subscribers still receiving; one that closed its channel or broke out of its loop is not counted. */
  get subscriberCount(): number {
    this.prune();
    return this.subscribers.size;
  }

  /** Offers the item to every subscriber without waiting. */
  publish(item: T): void {
    for (const channel of this.subscribers) {
      if (channel.closed) this.subscribers.delete(channel);
      else channel.trySend(item);
    }
  }

  /** Ends every subscription: subscribers drain what they hold, then finish. */
  close(): void {
    if (this.ended) return;
    this.ended = 'closed';
    for (const channel of this.subscribers) channel.close();
    this.subscribers.clear();
  }

  /** Ends every subscription with an error, delivered to each subscriber after what it holds. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = { error };
    for (const channel of this.subscribers) channel.fail(error);
    this.subscribers.clear();
  }

  private prune(): void {
    for (const channel of this.subscribers) if (channel.closed) this.subscribers.delete(channel);
  }
}
