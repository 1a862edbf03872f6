import { type Clock, type TimerHandle, sleepWithTimer } from './clock.js';

interface VirtualTimer {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
  cancelled: boolean;
}

export interface VirtualClockOptions {
  /** Virtual time at creation, in ms. Default 0. */
  startMs?: number;
  /**
   * When true (the default), the clock advances by itself whenever the host has no other work queued:
   * every promise chain has settled and only virtual timers remain. A simulated hour then runs in
   * milliseconds without anyone driving the clock.
   */
  autoAdvance?: boolean;
}

/**
 * Time that passes only when nothing else can run. Timers due at the same instant fire in the order they
 * were created, one per host macrotask, so every promise chain a timer starts settles before the next
 * timer fires: the order of events is a pure function of the program, not of the machine's speed.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly heap: VirtualTimer[] = [];
  private autoAdvance: boolean;
  private stepScheduled = false;
  private idleWaiters: Array<() => void> = [];

  constructor(options: VirtualClockOptions = {}) {
    this.current = options.startMs ?? 0;
    this.autoAdvance = options.autoAdvance ?? true;
  }

  now(): number {
    return this.current;
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    let n = 0;
    for (const t of this.heap) if (!t.cancelled) n++;
    return n;
  }

  /** Time of the next pending timer, or undefined when none. */
  nextTimerAt(): number | undefined {
    this.dropCancelledHead();
    return this.heap[0]?.at;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWithTimer(this, ms, signal);
  }

  setTimer(ms: number, callback: () => void): TimerHandle {
    const timer: VirtualTimer = {
      at: this.current + Math.max(0, ms),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.push(timer);
    this.scheduleStep();
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle {
    const period = Math.max(1, intervalMs);
    let handle: TimerHandle;
    let cancelled = false;
    const arm = (): void => {
      handle = this.setTimer(period, () => {
        if (cancelled) return;
        arm();
        callback();
      });
    };
    arm();
    return {
      cancel: () => {
        cancelled = true;
        handle.cancel();
      },
    };
  }

  /** Stops or restarts automatic advancing. */
  setAutoAdvance(enabled: boolean): void {
    this.autoAdvance = enabled;
    if (enabled) this.scheduleStep();
  }

  /**
   * Advances virtual time by `ms`, firing every timer due on the way and letting the work each one
   * starts settle before the next fires. Use with `autoAdvance: false` for step-by-step tests.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (;;) {
      this.dropCancelledHead();
      const next = this.heap[0];
      if (!next || next.at > target) break;
      this.fireNext();
      await settle();
    }
    this.current = Math.max(this.current, target);
  }

  /**
   * Resolves once no timer is pending and all work has settled (with auto-advance on), or at once if
   * nothing is pending. Useful to run a simulation to completion.
   */
  whenIdle(): Promise<void> {
    if (this.pendingTimers === 0 && !this.stepScheduled) return settle();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private scheduleStep(): void {
    if (!this.autoAdvance || this.stepScheduled) return;
    this.stepScheduled = true;
    // setImmediate runs only after every queued microtask has run: that is the moment when all tasks
    // are waiting on something, and in a simulation everything waits on this clock.
    setImmediate(() => this.step());
  }

  private step(): void {
    this.stepScheduled = false;
    if (!this.autoAdvance) return;
    this.dropCancelledHead();
    if (this.heap.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
      return;
    }
    this.fireNext();
    this.scheduleStep();
  }

  private fireNext(): void {
    const timer = this.pop();
    if (!timer || timer.cancelled) return;
    if (timer.at > this.current) this.current = timer.at;
    timer.cancelled = true;
    timer.callback();
  }

  private dropCancelledHead(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.pop();
  }

  private push(timer: VirtualTimer): void {
    const heap = this.heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): VirtualTimer | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Lets every queued microtask (and anything they queue) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
