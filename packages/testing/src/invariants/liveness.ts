import { describe, type LogModel } from './model.js';
import { eps } from './tolerance.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

/** L1: after the last voiced frame, userState is back to listening within the VAD's min silence. */
export function checkL1(m: LogModel, report: Report): void {
  const inputEnded = m.first('audio_input_ended')?.atMs ?? Number.POSITIVE_INFINITY;
  const bound = m.config.vad.minSilenceMs + eps(m);
  m.spans.forEach((span, i) => {
    if (span.end >= inputEnded) return;
    const deadline = span.end + bound;
    const next = m.spans[i + 1];
    if (next && next.start <= deadline) return;
    if (deadline >= m.closeAt || deadline > m.endMs) return;
    if (m.userState.at(deadline) === 'speaking') {
      report(
        `userState is still "speaking" ${bound} ms after the last voiced input (segment ${span.segments.join('+')} ended at ${span.end} ms; VAD min silence ${m.config.vad.minSilenceMs} ms)`,
        deadline,
        [],
      );
    }
  });
  // When the VAD can no longer hear (failed, input gone), nobody is speaking any more.
  for (const type of ['vad_restarted', 'audio_input_ended', 'audio_input_enabled'] as const) {
    for (const { index, entry } of m.entries(type)) {
      if (entry.atMs >= m.closeAt) continue;
      if (entry.type === 'audio_input_enabled' && entry.enabled) continue;
      if (m.userState.at(entry.atMs) === 'speaking') {
        report(`userState stays "speaking" after ${type} at ${entry.atMs} ms`, entry.atMs, [index]);
      }
    }
  }
  for (const { index, entry } of m.entries('vad_fed_silence')) {
    report(
      `the VAD was fed silence while the user spoke (segment ${entry.segment}): it must hear every input frame`,
      entry.atMs,
      [index],
    );
  }
}

/** L2: every speech ends exactly once, and an interrupted one ends within a bounded time. */
export function checkL2(m: LogModel, report: Report): void {
  const bound = m.config.interruptedPlayoutTimeoutMs + 500;
  for (const s of m.speeches.values()) {
    if (s.done.length === 0) {
      if (m.ended)
        report(`${s.id} (${s.source}) never reached a terminal outcome`, m.endMs, [s.createdIndex]);
    } else if (s.done.length > 1) {
      const outcomes = s.done.map((i) => describe(m.at(i))).join('; ');
      report(
        `${s.id} reached ${s.done.length} terminal outcomes: ${outcomes}`,
        m.at(s.done[1]!).atMs,
        s.done,
      );
    }
    const firstInterrupt = s.interrupts[0];
    if (firstInterrupt !== undefined) {
      const at = m.at(firstInterrupt).atMs;
      const doneAt = s.done[0] === undefined ? Number.POSITIVE_INFINITY : m.at(s.done[0]).atMs;
      if (doneAt > at + bound && Math.min(doneAt, m.endMs) > at + bound) {
        report(
          `${s.id} was interrupted at ${at} ms but ${doneAt === Number.POSITIVE_INFINITY ? 'never ended' : `ended only at ${doneAt} ms`} (bound ${bound} ms)`,
          at + bound,
          [firstInterrupt, ...s.done.slice(0, 1)],
        );
      }
    }
  }
  for (const { index, entry } of m.entries('playout_waited')) {
    const s = m.speech(entry.speechId);
    const done = s?.done[0];
    if (done === undefined) continue;
    const outcome = (m.at(done) as { outcome?: string }).outcome;
    if (!entry.outcome.startsWith('error') && outcome !== entry.outcome) {
      report(
        `${entry.speechId}: the handle says "${entry.outcome}" but the session traced "${outcome}"`,
        entry.atMs,
        [index, done],
      );
    }
  }
}

/** L3: the speech queue moves: idle output plus a queued speech means a prompt grant. */
export function checkL3(m: LogModel, report: Report): void {
  const promptMs = 100;
  const queued = new Map<string, number>();
  const midReply = new Set<string>();
  let holder: string | undefined;
  let stalledSince: { atMs: number; index: number } | undefined;
  const interruptedWhileQueued = new Map<string, { atMs: number; index: number }>();
  const check = (now: number): void => {
    const stuck = holder === undefined && queued.size > 0 && midReply.size === 0;
    if (!stuck) {
      stalledSince = undefined;
      return;
    }
    if (!stalledSince) return;
    if (now - stalledSince.atMs > promptMs) {
      report(
        `the output is idle while ${[...queued.keys()].join(', ')} ${queued.size === 1 ? 'is' : 'are'} queued (since ${stalledSince.atMs} ms)`,
        stalledSince.atMs + promptMs,
        [stalledSince.index],
      );
      queued.clear();
      stalledSince = undefined;
    }
  };
  m.log.forEach((entry, index) => {
    check(entry.atMs);
    for (const [id, since] of interruptedWhileQueued) {
      if (entry.atMs - since.atMs > promptMs) {
        report(
          `${id} was interrupted while queued at ${since.atMs} ms but was not skipped`,
          since.atMs + promptMs,
          [since.index],
        );
        interruptedWhileQueued.delete(id);
      }
    }
    switch (entry.type) {
      case 'speech_queued':
        queued.set(entry.speechId, index);
        midReply.delete(entry.speechId);
        break;
      case 'speech_authorized':
        queued.delete(entry.speechId);
        interruptedWhileQueued.delete(entry.speechId);
        holder = entry.speechId;
        break;
      case 'speech_released':
        if (holder === entry.speechId) holder = undefined;
        // Between two steps (its tools running) a speech may keep its place: waiting is by design.
        midReply.add(entry.speechId);
        break;
      case 'speech_interrupted':
        if (queued.has(entry.speechId))
          interruptedWhileQueued.set(entry.speechId, { atMs: entry.atMs, index });
        break;
      case 'speech_done':
        queued.delete(entry.speechId);
        midReply.delete(entry.speechId);
        interruptedWhileQueued.delete(entry.speechId);
        break;
      case 'close_requested':
        queued.clear();
        midReply.clear();
        interruptedWhileQueued.clear();
        break;
    }
    const stuck = holder === undefined && queued.size > 0 && midReply.size === 0;
    if (stuck && !stalledSince) stalledSince = { atMs: entry.atMs, index };
  });
  check(m.endMs);
}

/**
 * L4: no wait hangs on input-derived signals that may never come (the STT may be fed silence): every
 * endpointing wait ends by the last speech + the max endpointing delay.
 */
export function checkL4(m: LogModel, report: Report): void {
  const slack = eps(m);
  // The end of speech is known only after the VAD's min silence: a shorter max delay cannot be kept.
  const maxDelay = Math.max(m.config.turnHandling.maxEndpointingDelay, m.config.vad.minSilenceMs);
  const ends = new Set([
    'user_turn_committed',
    'vad_start_of_speech',
    'endpointing_started',
    'close_requested',
    // Turning audio input off ends endpointing: what was heard waits for the app or more speech.
    'audio_input_enabled',
  ]);
  const clears = new Set(
    m
      .entries('action')
      .filter(({ entry }) => entry.action === 'clear_user_turn')
      .map(({ index }) => index),
  );
  for (const { index, entry } of m.entries('endpointing_started')) {
    const deadline = entry.lastSpeechMs + maxDelay + slack;
    if (deadline > m.endMs || deadline >= m.closeAt) continue;
    let resolved = false;
    for (let i = index + 1; i < m.log.length; i++) {
      const e = m.log[i]!;
      if (e.atMs > deadline) break;
      if (ends.has(e.type) || clears.has(i)) {
        resolved = true;
        break;
      }
    }
    if (!resolved) {
      const silenced = m
        .entries('stt_fed_silence')
        .some(({ entry: s }) => s.atMs <= entry.atMs && s.atMs >= entry.lastSpeechMs - 30_000);
      report(
        `endpointing started at ${entry.atMs} ms (last speech ${entry.lastSpeechMs} ms) did not end by the max delay${silenced ? ' (the STT had been fed silence: is it waiting for a transcript?)' : ''}`,
        deadline,
        [index],
      );
    }
  }
}

/** L6: a paused speech is resumed or cut within the false-interruption timeout after the user stops. */
export function checkL6(m: LogModel, report: Report): void {
  const th = m.config.turnHandling;
  const wait = Math.max(th.falseInterruptionTimeout, th.maxEndpointingDelay) + eps(m) + 50;
  const changes = m.userState.changes;
  for (const { index, entry } of m.entries('speech_paused')) {
    let resolvedAt = Number.POSITIVE_INFINITY;
    for (let i = index + 1; i < m.log.length; i++) {
      const e = m.log[i]!;
      const same = 'speechId' in e && e.speechId === entry.speechId;
      if (
        (same &&
          (e.type === 'speech_resumed' || e.type === 'speech_interrupted' || e.type === 'speech_done')) ||
        e.type === 'close_requested'
      ) {
        resolvedAt = e.atMs;
        break;
      }
    }
    // The user's last stop before the resolution (a new start of speech restarts the wait).
    let stop: number | undefined = m.userState.at(entry.atMs) === 'speaking' ? undefined : entry.atMs;
    for (const c of changes) {
      if (c.index <= index) continue;
      if (c.atMs > resolvedAt) break;
      if (c.value === 'speaking') stop = undefined;
      else if (stop === undefined) stop = c.atMs;
    }
    if (stop === undefined) continue;
    let deadline = stop + wait;
    // An end-of-turn decision that starts after the stop (turn detection by the recognizer waits for a
    // late final) resolves the pause in its own time: commit or skip, by its max delay.
    for (const { entry: e } of m.entries('endpointing_started')) {
      if (e.atMs < stop || e.atMs > Math.min(resolvedAt, deadline)) continue;
      deadline = Math.max(deadline, e.atMs + th.maxEndpointingDelay + eps(m) + 50);
    }
    if (deadline > m.endMs || deadline >= m.closeAt) continue;
    if (resolvedAt > deadline) {
      report(
        `${entry.speechId} paused at ${entry.atMs} ms is still unresolved ${wait} ms after the user stopped at ${stop} ms`,
        deadline,
        [index],
      );
    }
  }
}

/** L7: close() completes in bounded time and nobody is left waiting. */
export function checkL7(m: LogModel, report: Report): void {
  const bound = m.config.closeTimeoutMs * 1.2 + 200;
  for (const { index, entry } of m.entries('close_requested')) {
    const closed = m.entries('close').find(({ index: i }) => i > index);
    if (!closed && m.ended)
      report(`close() requested at ${entry.atMs} ms never completed`, entry.atMs + bound, [index]);
    else if (closed && closed.entry.atMs > entry.atMs + bound) {
      report(`close() took ${closed.entry.atMs - entry.atMs} ms (bound ${bound} ms)`, closed.entry.atMs, [
        index,
        closed.index,
      ]);
    }
    break;
  }
  for (const { index, entry } of m.entries('sim_close_timeout')) {
    report(`the session did not close within ${entry.waitedMs} ms`, entry.atMs, [index]);
  }
  for (const { index, entry } of m.entries('sim_pending')) {
    report(`after close, ${entry.what} of ${entry.detail} is still pending`, entry.atMs, [index]);
  }
  if (!m.ended) return;
  const ended = new Set(m.entries('task_await_end').map(({ entry }) => `${entry.callId}/${entry.taskId}`));
  for (const { index, entry } of m.entries('task_await_start')) {
    if (!ended.has(`${entry.callId}/${entry.taskId}`)) {
      report(
        `the tool call ${entry.callId} awaiting ${entry.taskId} never got a result or an error`,
        m.endMs,
        [index],
      );
    }
  }
  const saysDone = new Set(m.entries('tool_say_done').map(({ entry }) => entry.speechId));
  for (const { index, entry } of m.entries('tool_step')) {
    if (entry.step !== 'say_wait' || entry.detail === undefined) continue;
    if (!saysDone.has(entry.detail)) {
      report(`the tool call ${entry.callId} awaiting ${entry.detail} never resumed`, m.endMs, [index]);
    }
  }
}

/** L8: every function call gets exactly one output in the history. */
export function checkL8(m: LogModel, report: Report): void {
  const calls = new Map<string, number>();
  const outputs = new Map<string, number[]>();
  for (const { index, item } of m.items) {
    if (item.type === 'function_call') calls.set(item.callId, index);
    if (item.type === 'function_call_output')
      outputs.set(item.callId, [...(outputs.get(item.callId) ?? []), index]);
  }
  for (const [callId, index] of calls) {
    const n = outputs.get(callId)?.length ?? 0;
    if (n !== 1) report(`function call ${callId} has ${n} outputs in the history`, m.at(index).atMs, [index]);
  }
  for (const [callId, list] of outputs) {
    if (!calls.has(callId))
      report(`output of ${callId} has no function call in the history`, m.at(list[0]!).atMs, list);
  }
  if (!m.ended) return;
  for (const { index, entry } of m.entries('tool_started')) {
    if (!outputs.has(entry.callId)) {
      report(`tool call ${entry.callId} (${entry.name}) ran but no output reached the history`, entry.atMs, [
        index,
      ]);
    }
  }
  for (const { index, entry } of m.entries('llm_tool_call')) {
    const callId = m.sessionCallId(index);
    // Not run (a repeat or re-emission): the call it repeats is in the history, or is checked itself.
    if (callId === undefined || calls.has(callId) || !entry.speechId) continue;
    const s = m.speech(entry.speechId);
    const cut = (s?.interrupts.length ?? 0) > 0 || m.closeAt < Number.POSITIVE_INFINITY;
    if (!cut)
      report(
        `the model called ${entry.name} (${callId}) but the call never reached the history`,
        entry.atMs,
        [index],
      );
  }
}

/** L9: a turn is committed between last speech + min delay and last speech + max delay. */
export function checkL9(m: LogModel, report: Report): void {
  const th = m.config.turnHandling;
  if (th.turnDetection !== 'vad') return;
  const slack = eps(m);
  const manual = m.entries('action').filter(({ entry }) => entry.action === 'commit_user_turn');
  const lost = [
    ...m.entries('vad_restarted'),
    ...m.entries('audio_input_ended'),
    ...m.entries('audio_input_enabled'),
    ...m.entries('audio_input_source_changed'),
  ].map(({ entry }) => entry.atMs);
  const seen = new Set<string>();
  for (const { index, entry } of m.entries('user_turn_committed')) {
    if (seen.has(entry.turnId)) continue;
    seen.add(entry.turnId);
    const lastSpeech = entry.lastSpeechMs;
    if (lastSpeech === undefined) continue;
    if (manual.some(({ entry: a }) => a.atMs === entry.atMs)) continue;
    const elapsed = entry.atMs - lastSpeech;
    const maxDelay = Math.max(th.maxEndpointingDelay, m.config.vad.minSilenceMs);
    if (elapsed < th.minEndpointingDelay - slack || elapsed > maxDelay + slack) {
      report(
        `${entry.turnId} committed ${elapsed} ms after the last speech (allowed ${th.minEndpointingDelay}..${maxDelay} ms)`,
        entry.atMs,
        [index],
      );
      continue;
    }
    // The session's idea of the last speech must match the audio, unless the VAD was lost meanwhile.
    if (m.spans.length === 0 || lost.some((t) => t <= entry.atMs && t >= lastSpeech - 1)) continue;
    const span = m.spanAtOrBefore(lastSpeech + slack);
    if (span && Math.abs(span.end - lastSpeech) > slack && span.end < entry.atMs) {
      report(
        `${entry.turnId}: the session placed the last speech at ${entry.lastSpeechMs} ms but the voice ended at ${span.end} ms`,
        entry.atMs,
        [index],
      );
    }
  }
}

/** L10: waitForPlayout() resolves only once the speech's audio has actually stopped. */
export function checkL10(m: LogModel, report: Report): void {
  for (const { index, entry } of m.entries('playout_waited')) {
    const s = m.speech(entry.speechId);
    if (!s || s.frames.length === 0) continue;
    const later = s.frames.find((i) => i > index);
    if (later !== undefined) {
      report(
        `${s.id}: waitForPlayout() resolved at ${entry.atMs} ms but frames kept coming`,
        m.at(later).atMs,
        [index, later],
      );
      continue;
    }
    const lastFrame = s.frames[s.frames.length - 1]!;
    const stopped = m.entries('output_audio_end').find(({ index: i }) => i > lastFrame && i <= index);
    if (!stopped) {
      const after = m.entries('output_audio_end').find(({ index: i }) => i > index);
      const pause = [...m.entries('output_paused'), ...m.entries('output_resumed')]
        .filter(({ index: i }) => i < index)
        .sort((a, b) => a.index - b.index)
        .pop();
      const held =
        pause?.entry.type === 'output_paused'
          ? ` (its audio sat in a sink left paused since ${pause.entry.atMs} ms)`
          : '';
      const until = after ? ` (it stopped at ${after.entry.atMs} ms)` : '';
      report(
        `${s.id}: waitForPlayout() resolved at ${entry.atMs} ms while its audio was still playing${held || until}`,
        entry.atMs,
        [index, ...(after ? [after.index] : []), ...(pause && held ? [pause.index] : [])],
      );
    }
  }
}
