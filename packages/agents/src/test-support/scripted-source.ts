import type { Clock } from '../time/clock.js';

/** One step of a scripted provider response. */
export type Step<T> =
  | { item: T }
  /** Waits on the clock; honours the abort like a well-behaved network read. */
  | { waitMs: number }
  /** Waits forever and ignores the abort, like a provider stuck in a read. */
  | { hang: true }
  | { fail: unknown };

export interface ScriptedSource<T> {
  /** Pass as the source / attempt factory; each call plays the next script (the last one repeats). */
  open: (attemptOrSignal: number | AbortSignal, maybeSignal?: AbortSignal) => AsyncIterable<T>;
  /** The signal each call was given. */
  readonly signals: AbortSignal[];
  /** How many calls ran their cleanup (`finally`). */
  readonly cleanups: () => number;
}

/** A fake streaming provider for the provider-utils tests: plays scripts on the clock. */
export function scriptedSource<T>(
  clock: Clock,
  scripts: ReadonlyArray<ReadonlyArray<Step<T>>>,
): ScriptedSource<T> {
  const signals: AbortSignal[] = [];
  let cleanups = 0;
  let calls = 0;
  async function* play(script: ReadonlyArray<Step<T>>, signal: AbortSignal): AsyncGenerator<T> {
    try {
      for (const step of script) {
        if ('item' in step) yield step.item;
        else if ('waitMs' in step) await clock.sleep(step.waitMs, signal);
        else if ('hang' in step) await new Promise(() => {});
        else throw step.fail;
      }
    } finally {
      cleanups++;
    }
  }
  return {
    open: (attemptOrSignal, maybeSignal) => {
      const signal = typeof attemptOrSignal === 'number' ? maybeSignal! : attemptOrSignal;
      signals.push(signal);
      const script = scripts[Math.min(calls++, scripts.length - 1)]!;
      return play(script, signal);
    },
    signals,
    cleanups: () => cleanups,
  };
}

/** Drains a stream, returning what came before the error (if any) and the error itself. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

/** Lets pending promise chains and immediate callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
