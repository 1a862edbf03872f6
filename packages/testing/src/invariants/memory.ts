import type { LogModel } from './model.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

/** S12: a slow consumer causes back-pressure or counted drops, never unbounded buffering. */
export function checkS12(m: LogModel, report: Report): void {
  const overruns = m.entries('output_overrun');
  if (overruns.length > 0) {
    const first = overruns[0]!;
    report(
      `frames were pushed to the output without waiting for its back-pressure (${overruns.length} times; ${first.entry.aheadMs} ms queued)`,
      first.entry.atMs,
      [first.index],
    );
  }
  const end = m.first('sim_end');
  if (end && (end.vadFrames > end.inputFrames || end.sttFrames > end.inputFrames)) {
    report(
      `providers received more frames than the microphone produced (VAD ${end.vadFrames}, STT ${end.sttFrames}, input ${end.inputFrames})`,
      end.atMs,
      [],
    );
  }
}
