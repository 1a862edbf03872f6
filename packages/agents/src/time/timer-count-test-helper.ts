// Shared by tests that check how many timers a component arms. Not exported from the package root.
import type { VirtualClock } from './virtual-clock.js';

/** Counts the timers armed on `clock` from now on; the returned function reads the count. */
export function countArmedTimers(clock: VirtualClock): () => number {
  let armed = 0;
  const setTimer = clock.setTimer.bind(clock);
  clock.setTimer = ((ms: number, callback: () => void) => {
    armed++;
    return setTimer(ms, callback);
  }) as typeof clock.setTimer;
  return () => armed;
}
