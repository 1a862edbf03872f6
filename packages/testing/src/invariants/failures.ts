import { defaultDeadlines } from '@voxwire/agents';
import type { LogModel } from './model.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

/** S11: a failure surfaces on its speech and as an `error` event, and never breaks the session. */
export function checkS11(m: LogModel, report: Report): void {
  for (const { index, entry } of m.entries('sim_timer_error')) {
    report(`an exception escaped into the clock: ${entry.message}`, entry.atMs, [index]);
  }
  for (const { index, entry } of m.entries('error')) {
    if (entry.source === 'session')
      report(
        `internal failure reported as a session error: ${entry.error.name}: ${entry.error.message}`,
        entry.atMs,
        [index],
      );
  }
  // What can fail a speech: a provider's error, a hung provider, and any fault active while the speech
  // ran (a stall fault hangs every request made during its window). A hang fails the step only when its
  // deadline passes, and it may have begun before the speech (a preemptive request the reply took over):
  // it explains failures up to the longest deadline after it.
  const d = m.config.deadlines ?? defaultDeadlines;
  const longest =
    Math.max(
      d.llmFirstChunkTimeoutMs,
      d.llmChunkTimeoutMs,
      d.ttsFirstAudioTimeoutMs,
      d.ttsAudioTimeoutMs,
      d.sttResponseTimeoutMs,
    ) +
    d.playoutGraceMs +
    1000;
  const instants = [...m.entries('llm_error'), ...m.entries('tts_error')].map(({ entry }) => ({
    from: entry.atMs,
    to: entry.atMs,
  }));
  const hangs = [...m.entries('provider_stall'), ...m.entries('output_capture_stalled')].map(({ entry }) => ({
    from: entry.atMs,
    to: entry.atMs + longest,
  }));
  const windows = m
    .entries('fault')
    .map(({ entry }) => ({ from: entry.atMs, to: entry.atMs + entry.durationMs }));
  const causes = [...instants, ...hangs, ...windows];
  const errors = m.entries('error');
  for (const s of m.speeches.values()) {
    const done = s.done[0];
    if (done === undefined) continue;
    const d = m.at(done) as { outcome: string; atMs: number; error?: string };
    if (d.outcome !== 'failed') continue;
    if (!causes.some((c) => c.to >= s.createdAt && c.from <= d.atMs)) {
      report(`${s.id} failed with no provider failure to explain it: ${d.error ?? 'unknown error'}`, d.atMs, [
        s.createdIndex,
        done,
      ]);
    }
    if (!errors.some(({ index }) => index > s.createdIndex && index <= done + 2)) {
      report(`${s.id} failed but no error event reported it`, d.atMs, [done]);
    }
  }
  const closeEvent = m.entries('close')[0];
  const requested = m.first('close_requested');
  const asked = m.entries('action').some(({ entry }) => entry.action === 'close');
  if (closeEvent && requested && !asked && m.entries('sim_end').length > 0) {
    const reason = closeEvent.entry.reason;
    if (reason !== 'end of scenario')
      report(`the session closed by itself: ${reason}`, closeEvent.entry.atMs, [closeEvent.index]);
  }
}
