import { Channel, type ChannelOptions } from './channel.js';

/**
 * Fans one producer out to many consumers, each with its own bounded channel. A slow consumer drops
 * or blocks only itself (by its own policy); a consumer that stops iterating is unsubscribed, so
 * nothing is retained for it. This replaces `tee()`, whose branches buffer without bound.
 */
export class Broadcast<T> {
  private readonly subscribers = new Set<Channel<T>>();
  private ended = false;

  subscribe(options: ChannelOptions): Channel<T> {
    const channel = new Channel<T>(options);
    if (this.ended) {
      channel.close();
      return channel;
    }
    this.subscribers.add(channel);
    return channel;
  }

  unsubscribe(channel: Channel<T>): void {
    this.subscribers.delete(channel);
    channel.dispose();
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Offers the item to every subscriber without waiting; subscribers that closed are dropped. */
  publish(item: T): void {
    for (const channel of this.subscribers) {
      if (channel.closed) {
        this.subscribers.delete(channel);
        continue;
      }
      channel.trySend(item);
    }
  }

  close(): void {
    this.ended = true;
    for (const channel of this.subscribers) channel.close();
    this.subscribers.clear();
  }
}
