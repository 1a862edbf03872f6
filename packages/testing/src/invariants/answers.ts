import { defaultDeadlines } from '@voxwire/agents';
import type { LogEntry } from '../log.js';
import type { LogModel } from './model.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

interface Interval {
  from: number;
  to: number;
}

/**
 * L5: every committed user turn is answered or visibly skipped, and a skipped turn plays nothing. A turn
 * is answered when its reply has ended (played, failed with an error, or cut on purpose), not when it
 * started, and that happens within a bounded time: the session's provider and sink deadlines per step,
 * on top of what the reply legitimately waited for (its audio playing, its place in the queue, its tools,
 * a pause while the user talked over it).
 */
export function checkL5(m: LogModel, report: Report): void {
  const seen = new Set<string>();
  const replies = new Map<string, number[]>();
  for (const { index, entry } of m.entries('reply_started')) {
    if (entry.turnId) replies.set(entry.turnId, [...(replies.get(entry.turnId) ?? []), index]);
  }
  const skips = new Map(m.entries('user_turn_skipped').map(({ index, entry }) => [entry.turnId, index]));
  for (const { index, entry } of m.entries('user_turn_committed')) {
    if (seen.has(entry.turnId)) continue;
    seen.add(entry.turnId);
    if (entry.atMs >= m.closeAt) continue;
    const replyIndexes = replies.get(entry.turnId) ?? [];
    const skip = skips.get(entry.turnId);
    if (replyIndexes.length === 0 && skip === undefined) {
      if (m.closeAt <= entry.atMs + 1000 || !m.ended) continue;
      report(
        `${entry.turnId} ("${entry.transcript}") was committed but neither answered nor skipped`,
        entry.atMs,
        [index],
      );
      continue;
    }
    const speechIds = replyIndexes.map((r) => (m.at(r) as { speechId: string }).speechId);
    if (skip !== undefined) {
      for (const speechId of speechIds) {
        const frames = m.speech(speechId)?.frames ?? [];
        if (frames.length > 0) {
          report(
            `${entry.turnId} was skipped but its reply ${speechId} played audio`,
            m.at(frames[0]!).atMs,
            [skip, frames[0]!],
          );
        }
      }
      continue;
    }
    checkAnsweredInTime(m, report, entry.turnId, entry.atMs, index, speechIds);
  }
}

function checkAnsweredInTime(
  m: LogModel,
  report: Report,
  turnId: string,
  committedAt: number,
  committedIndex: number,
  speechIds: readonly string[],
): void {
  let answeredAt = Number.POSITIVE_INFINITY;
  for (const id of speechIds) {
    const done = m.speech(id)?.done[0];
    if (done !== undefined) answeredAt = Math.min(answeredAt, m.at(done).atMs);
  }
  const until = Math.min(answeredAt, m.endMs);
  const budget = budgetFor(m, speechIds, committedAt, until);
  if (answeredAt === Number.POSITIVE_INFINITY) {
    if (!m.ended) return;
    report(
      `${turnId}: its reply ${speechIds.join(', ')} started but never played, failed or was cut`,
      committedAt,
      [committedIndex],
    );
    return;
  }
  if (answeredAt - committedAt > budget) {
    const how = answeredAt >= m.closeAt ? ' (only by the close)' : '';
    report(
      `${turnId} committed at ${committedAt} ms was answered only at ${answeredAt} ms${how}, beyond its bound of ${Math.round(budget)} ms`,
      committedAt + budget,
      [committedIndex],
    );
  }
}

/**
 * How long the reply to a turn may take: per step, the longest wait the deadlines allow before the first
 * chunk and the first audio, the sink's grace and an interrupted segment's timeout; plus its own audio,
 * and the time it waited in the queue, ran tools or was paused.
 */
function budgetFor(m: LogModel, speechIds: readonly string[], from: number, to: number): number {
  const d = m.config.deadlines ?? defaultDeadlines;
  const own = m.entriesOfSpeeches(speechIds);
  const steps = Math.max(1, own.filter((entry) => entry.type === 'speech_authorized').length);
  const perStep =
    d.llmFirstChunkTimeoutMs +
    d.ttsFirstAudioTimeoutMs +
    d.playoutGraceMs +
    m.config.interruptedPlayoutTimeoutMs +
    2000;
  let audioMs = 0;
  for (const entry of own) {
    if (entry.type === 'output_frame' && entry.atMs >= from && entry.atMs <= to) audioMs += entry.durationMs;
  }
  return steps * perStep + audioMs + coveredMs(waits(own), from, to);
}

/** Spans in which the replies legitimately waited: queued, running tools, paused by the user. */
function waits(own: readonly LogEntry[]): Interval[] {
  const spans: Interval[] = [];
  const open = new Map<string, number>();
  const start = (key: string, at: number): void => {
    if (!open.has(key)) open.set(key, at);
  };
  const end = (key: string, at: number): void => {
    const from = open.get(key);
    if (from === undefined) return;
    open.delete(key);
    spans.push({ from, to: at });
  };
  for (const entry of own) {
    if (!('speechId' in entry) || typeof entry.speechId !== 'string') continue;
    const id = entry.speechId;
    switch (entry.type) {
      case 'speech_queued':
        start(`queued:${id}`, entry.atMs);
        break;
      case 'speech_authorized':
        end(`queued:${id}`, entry.atMs);
        break;
      case 'speech_paused':
        start(`paused:${id}`, entry.atMs);
        break;
      case 'speech_resumed':
      case 'speech_interrupted':
        end(`paused:${id}`, entry.atMs);
        break;
      case 'tool_started':
        start(`tool:${entry.callId}`, entry.atMs);
        break;
      case 'tool_finished':
        end(`tool:${entry.callId}`, entry.atMs);
        break;
      case 'speech_done':
        for (const key of [...open.keys()]) if (key.endsWith(`:${id}`)) end(key, entry.atMs);
        break;
    }
  }
  for (const [, from] of open) spans.push({ from, to: Number.POSITIVE_INFINITY });
  return spans;
}

/** Length of the union of `spans` within [from, to]. */
function coveredMs(spans: Interval[], from: number, to: number): number {
  const clipped = spans
    .map((s) => ({ from: Math.max(s.from, from), to: Math.min(s.to, to) }))
    .filter((s) => s.to > s.from)
    .sort((a, b) => a.from - b.from);
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const s of clipped) {
    const start = Math.max(s.from, reach);
    if (s.to > start) total += s.to - start;
    reach = Math.max(reach, s.to);
  }
  return total;
}
