import { type Clock, repeatWithTimers, sleepWithTimer, type TimerHandle } from './clock.js';
import { NEVER_FIRES, normalizeDelay } from './delay.js';

/**
 * A pending timer, and its own handle: a simulation arms one per audio frame, so the entry is not
 * wrapped in a second object to be cancelled.
 */
class VirtualTimer implements TimerHandle {
  constructor(
    private readonly owner: TimerOwner,
    readonly at: number,
    readonly seq: number,
    /** Dropped once the timer fires or is cancelled, so a dead entry holds no closure. */
    public callback: (() => void) | undefined,
  ) {}

  private cancelBound: (() => void) | undefined;

  /**
   * Not a method: a handle's `cancel` may be called detached, as it always could. Made on first use, as
   * most of a simulation's timers (one per audio frame) fire without ever being cancelled.
   */
  get cancel(): () => void {
    this.cancelBound ??= () => this.owner.cancel(this);
    return this.cancelBound;
  }
}

/** The clock's side of a timer handle, one per clock. */
interface TimerOwner {
  cancel(timer: VirtualTimer): void;
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
  /**
   * Receives whatever a timer callback throws, and the clock goes on. Without it the error escapes
   * like a host timer's would: as an uncaught exception under auto-advance, or as the rejection of
   * the `advance()` call that fired the timer.
   */
  onTimerError?: (error: unknown) => void;
  /**
   * Under auto-advance, how many timers may fire in one host macrotask. Each still fires only once every
   * microtask the one before it queued has run (promise chains settle between timers, as with one
   * timer per macrotask), but without a turn of the host's event loop in between: a simulation arms a
   * timer per audio frame, and the loop's turn costs more than the frame's work. Code that waits on the
   * host between steps of a chain (`process.nextTick`, `setImmediate`, real I/O) then sees up to this
   * many timers fire meanwhile instead of one. Default 1.
   */
  timersPerMacrotask?: number;
}

const SETTLED = Promise.resolve();

/** Below this size compaction costs more than the dead entries do. */
const MIN_COMPACT_SIZE = 64;

/**
 * Time that passes only when nothing else can run. Timers due at the same instant fire in the order they
 * were created, one per host macrotask (or several, see `timersPerMacrotask`), so every promise chain a
 * timer starts settles before the next timer fires: the order of events is a pure function of the
 * program, not of the machine's speed.
 *
 * "Nothing else can run" is judged from the host's queues: a task waiting on real I/O looks idle, so
 * keep real sockets and files out of code that runs on this clock.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private heap: VirtualTimer[] = [];
  /** Timers in the heap that will still fire; the others are dead entries awaiting removal. */
  private live = 0;
  private autoAdvance: boolean;
  private readonly onTimerError: ((error: unknown) => void) | undefined;
  private stepScheduled = false;
  private readonly timersPerMacrotask: number;
  /** Timers fired since the current host macrotask began. */
  private burst = 0;
  private idleCheckScheduled = false;
  private idleWaiters: Array<() => void> = [];
  /** One closure for every step's host macrotask rather than one per timer. */
  private readonly stepBound = (): void => this.step();
  /**
   * Queued as a microtask after a timer ran: by the time it runs, the microtasks queued before it have,
   * and the tick it asks for runs only once the host has drained the microtask queue entirely.
   */
  private readonly afterMicrotasksBound = (): void => process.nextTick(this.stepBound);
  private readonly timerOwner: TimerOwner = { cancel: (timer) => this.cancel(timer) };

  constructor(options: VirtualClockOptions = {}) {
    this.current = options.startMs ?? 0;
    this.autoAdvance = options.autoAdvance ?? true;
    this.onTimerError = options.onTimerError;
    const perMacrotask = options.timersPerMacrotask ?? 1;
    if (!(perMacrotask >= 1)) {
      throw new RangeError(`timersPerMacrotask must be at least 1, got ${options.timersPerMacrotask}`);
    }
    this.timersPerMacrotask = Math.floor(perMacrotask);
  }

  now(): number {
    return this.current;
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.live;
  }

  /** Time of the next pending timer, or undefined when none. */
  nextTimerAt(): number | undefined {
    return this.peek()?.at;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWithTimer(this, ms, signal);
  }

  setTimer(ms: number, callback: () => void): TimerHandle {
    const delay = normalizeDelay(ms);
    // An infinite timer would drag virtual time to infinity the moment everything else is idle.
    if (delay === Number.POSITIVE_INFINITY) return NEVER_FIRES;
    const timer = new VirtualTimer(this.timerOwner, this.current + delay, this.seq++, callback);
    this.push(timer);
    this.live++;
    this.scheduleStep();
    return timer;
  }

  setRepeatingTimer(intervalMs: number, callback: () => void): TimerHandle {
    const period = Math.max(1, normalizeDelay(intervalMs));
    if (period === Number.POSITIVE_INFINITY) return NEVER_FIRES;
    return repeatWithTimers(this, period, callback);
  }

  /** Stops or restarts automatic advancing. */
  setAutoAdvance(enabled: boolean): void {
    this.autoAdvance = enabled;
    if (enabled) this.scheduleStep();
  }

  /**
   * Advances virtual time by `ms`, firing every timer due on the way (those exactly at the target
   * included) and letting the work each one starts settle before the next fires. Use with
   * `autoAdvance: false` for step-by-step tests. Rejects if a timer callback throws and there is no
   * `onTimerError`; time then stays at that timer's instant.
   */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms)) throw new RangeError(`advance() needs a finite duration, got ${ms}`);
    const target = this.current + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.peek();
      if (!next || next.at > target) break;
      this.pop();
      this.run(next);
      await settle();
    }
    this.current = Math.max(this.current, target);
    this.checkIdleSoon();
  }

  /**
   * Resolves once no timer is pending and the work the last one started has settled. With auto-advance
   * that happens by itself; in manual mode, when `advance()` has run every timer or the last one is
   * cancelled. A repeating timer keeps the clock busy until it is cancelled.
   */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdleSoon();
    });
  }

  private cancel(timer: VirtualTimer): void {
    if (timer.callback === undefined) return;
    timer.callback = undefined;
    this.live--;
    // Dead entries leave the heap when they reach its top, which for a long timeout aborted early could
    // be never: a session that arms and cancels a timeout per audio frame would grow without bound.
    const dead = this.heap.length - this.live;
    if (this.heap.length >= MIN_COMPACT_SIZE && dead * 2 > this.heap.length) this.compact();
    if (this.live === 0) this.checkIdleSoon();
  }

  private scheduleStep(): void {
    if (!this.autoAdvance || this.stepScheduled) return;
    this.stepScheduled = true;
    this.burst = 0;
    // setImmediate runs only after every queued microtask has run: that is the moment when all tasks
    // are waiting on something, and in a simulation everything waits on this clock.
    setImmediate(this.stepBound);
  }

  private step(): void {
    // Still marked as scheduled while the timer runs: the timers it arms do not each ask for a step.
    if (!this.autoAdvance) {
      this.stepScheduled = false;
      return;
    }
    const timer = this.peek();
    if (!timer) {
      this.stepScheduled = false;
      this.resolveIdleWaiters();
      return;
    }
    this.pop();
    let threw = true;
    try {
      this.run(timer);
      threw = false;
    } finally {
      // Even when the callback throws, so one failing timer cannot freeze time for everyone else; the
      // error then leaves from this macrotask, and the next timer gets one of its own.
      this.stepScheduled = false;
      if (!threw && this.live > 0 && ++this.burst < this.timersPerMacrotask) {
        this.stepScheduled = true;
        // A reaction on a settled promise is queued like queueMicrotask() would, without the async
        // resource and bound function Node's queueMicrotask makes per call.
        void SETTLED.then(this.afterMicrotasksBound);
      } else {
        this.scheduleStep();
      }
    }
  }

  private run(timer: VirtualTimer): void {
    const callback = timer.callback;
    if (callback === undefined) return;
    timer.callback = undefined;
    this.live--;
    if (timer.at > this.current) this.current = timer.at;
    if (!this.onTimerError) {
      callback();
      return;
    }
    try {
      callback();
    } catch (error) {
      this.onTimerError(error);
    }
  }

  /** Checks for idleness after pending microtasks ran, since they may still schedule timers. */
  private checkIdleSoon(): void {
    if (this.idleCheckScheduled || this.idleWaiters.length === 0) return;
    this.idleCheckScheduled = true;
    setImmediate(() => {
      this.idleCheckScheduled = false;
      if (this.live === 0) this.resolveIdleWaiters();
    });
  }

  private resolveIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private peek(): VirtualTimer | undefined {
    while (this.heap.length > 0 && this.heap[0]!.callback === undefined) this.pop();
    return this.heap[0];
  }

  private compact(): void {
    // A sorted array is a valid binary heap, so sorting the survivors rebuilds it.
    this.heap = this.heap.filter((timer) => timer.callback !== undefined).sort(compare);
  }

  private push(timer: VirtualTimer): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(timer);
    // Sift up by moving parents down into the hole, and place the timer once.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (compare(timer, p) >= 0) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = timer;
  }

  private pop(): VirtualTimer | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && compare(heap[r]!, heap[l]!) < 0 ? r : l;
        if (compare(heap[m]!, last) >= 0) break;
        heap[i] = heap[m]!;
        i = m;
      }
      heap[i] = last;
    }
    return top;
  }
}

function compare(a: VirtualTimer, b: VirtualTimer): number {
  return a.at - b.at || a.seq - b.seq;
}

/** Lets every queued microtask (and anything they queue) run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
