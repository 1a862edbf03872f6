/**
 * A minimal typed event emitter. A throwing listener is isolated (reported to `onListenerError`) so one
 * bad subscriber cannot break the session that emits.
 */
export type EventMap = Record<string, unknown>;
export type Listener<T> = (event: T) => void;

export class TypedEmitter<Events extends EventMap> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();
  private readonly onceWrappers = new WeakMap<Listener<never>, Listener<never>>();
  onListenerError: (error: unknown, eventName: string) => void = () => {};

  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as Listener<never>);
    return this;
  }

  once<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this {
    const wrapper: Listener<Events[K]> = (event) => {
      this.off(name, listener);
      listener(event);
    };
    this.onceWrappers.set(listener as Listener<never>, wrapper as Listener<never>);
    return this.on(name, wrapper);
  }

  /** Removes a listener added with `on` or `once`. */
  off<K extends keyof Events>(name: K, listener: Listener<Events[K]>): this {
    const set = this.listeners.get(name);
    const wrapper = this.onceWrappers.get(listener as Listener<never>);
    if (wrapper && set?.delete(wrapper)) this.onceWrappers.delete(listener as Listener<never>);
    else set?.delete(listener as Listener<never>);
    return this;
  }

  emit<K extends keyof Events>(name: K, event: Events[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(event);
      } catch (error) {
        this.onListenerError(error, String(name));
      }
    }
  }

  listenerCount(name: keyof Events): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  removeAllListeners(): void {
    this.listeners.clear();
  }
}
