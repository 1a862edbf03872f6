import type { LogModel } from './model.js';
import { eps, USER_REASONS } from './tolerance.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

/** S1: agentState is `speaking` exactly while the current speech's frames reach the output. */
export function checkS1(m: LogModel, report: Report): void {
  for (const { index, entry } of m.entries('output_frame')) {
    if (!m.agentState.wasDuring(entry.atMs, 'speaking')) {
      report(
        `a frame of ${entry.speechId ?? 'no speech'} reached the output while agentState was "${m.agentState.at(entry.atMs)}"`,
        entry.atMs,
        [index],
      );
      break;
    }
  }
  const out = m.config.output;
  let lastSegmentEnd: { atMs: number; dueAt: number; firstAt: number } | undefined;
  // When the segment's audio is due: each frame plays after the ones before it, or at once after an underrun.
  let dueAt: number | undefined;
  let firstAt: number | undefined;
  for (const [index, entry] of m.log.entries()) {
    if (entry.type === 'output_frame') {
      if (entry.first || dueAt === undefined) {
        dueAt = entry.atMs;
        firstAt = entry.atMs;
      }
      dueAt = Math.max(dueAt, entry.atMs) + entry.durationMs;
    }
    if (entry.type === 'output_segment_end') {
      lastSegmentEnd = { atMs: entry.atMs, dueAt: dueAt ?? entry.atMs, firstAt: firstAt ?? entry.atMs };
      dueAt = undefined;
    }
    if (entry.type !== 'output_audio_end') continue;
    let deadline: number;
    if (!out.neverFinish) deadline = entry.atMs + out.finishLagMs + eps(m);
    else if (entry.interrupted) deadline = entry.atMs + m.config.interruptedPlayoutTimeoutMs + eps(m);
    else {
      // A silent sink is given up on once the audio is due (from its first frame) plus the grace, paused
      // time excluded (the session's own pause, which a sink that cannot pause never sees).
      const due = Math.max(lastSegmentEnd?.dueAt ?? entry.atMs, lastSegmentEnd?.atMs ?? entry.atMs);
      deadline = due + m.config.playoutWatchdogSlackMs + eps(m);
      deadline += pausedMsAfter(m, entry.speechId, lastSegmentEnd?.firstAt ?? entry.atMs, deadline);
    }
    if (deadline >= m.closeAt || deadline > m.endMs) continue;
    // An interrupt meanwhile is judged by the rule below.
    const cutBefore = m
      .speech(entry.speechId ?? '')
      ?.interrupts.some((i) => i > index && m.at(i).atMs <= deadline);
    if (cutBefore) continue;
    const nextFrame = m.firstAfter('output_frame', index);
    if (nextFrame && nextFrame.entry.atMs <= deadline) continue;
    if (m.agentState.at(deadline) === 'speaking') {
      report(
        `agentState is still "speaking" at ${deadline} ms although the audio of ${entry.speechId ?? 'the last speech'} stopped at ${entry.atMs} ms`,
        deadline,
        [index],
      );
    }
  }
  // An interrupted speech is not speaking any more, whatever its sink still has to report.
  for (const s of m.speeches.values()) {
    const interrupt = s.interrupts[0];
    if (interrupt === undefined || m.holder.beforeIndex(interrupt) !== s.id) continue;
    const at = m.at(interrupt).atMs;
    const deadline = at + eps(m);
    if (deadline >= m.closeAt || deadline > m.endMs) continue;
    const other = m
      .entries('output_frame')
      .some(({ index, entry }) => index > interrupt && entry.atMs <= deadline);
    if (!other && m.agentState.at(deadline) === 'speaking') {
      report(`agentState is "speaking" ${eps(m)} ms after ${s.id} was interrupted at ${at} ms`, deadline, [
        interrupt,
      ]);
    }
  }
  for (const { index, entry } of m.entries('speech_released')) {
    if (entry.atMs >= m.closeAt) continue;
    if (m.holder.at(entry.atMs) === undefined && m.agentState.at(entry.atMs) === 'speaking') {
      report(
        `agentState is "speaking" while no speech holds the output (after ${entry.speechId} released it)`,
        entry.atMs,
        [index],
      );
    }
  }
}

/**
 * Extends a watchdog deadline by the time the speech spent paused by the session (the user talking)
 * after `from`: paused time does not count against a sink that stopped reporting.
 */
function pausedMsAfter(m: LogModel, speechId: string | undefined, from: number, deadline: number): number {
  const spans: Array<[number, number]> = [];
  let pausedAt: number | undefined;
  for (const entry of m.log) {
    if (!('speechId' in entry) || entry.speechId !== speechId) continue;
    if (entry.type === 'speech_paused') pausedAt ??= entry.atMs;
    else if (
      pausedAt !== undefined &&
      (entry.type === 'speech_resumed' || entry.type === 'speech_interrupted' || entry.type === 'speech_done')
    ) {
      spans.push([pausedAt, entry.atMs]);
      pausedAt = undefined;
    }
  }
  if (pausedAt !== undefined) spans.push([pausedAt, m.endMs]);
  let extra = 0;
  for (const [a, b] of spans) {
    if (b <= from || a > deadline + extra) continue;
    extra += b - Math.max(a, from);
  }
  return extra;
}

/**
 * Whether the step of `speechId` that recorded the item at `index` began with the audio output muted
 * (`session.output.setAudioEnabled(false)`): such a step is text only, and its text is what was shown.
 */
function textOnlyStep(m: LogModel, speechId: string, index: number): boolean {
  const authorized = m
    .entries('speech_authorized')
    .filter(({ index: i, entry }) => i < index && entry.speechId === speechId)
    .pop();
  if (!authorized) return false;
  const toggle = m
    .entries('audio_output_enabled')
    .filter(({ index: i }) => i < authorized.index)
    .pop();
  return toggle !== undefined && !toggle.entry.enabled;
}

/** S2: after an interrupt, nothing more of the speech is heard or recorded, and its message is marked. */
export function checkS2(m: LogModel, report: Report): void {
  const msPerChar = m.config.tts.msPerChar;
  for (const s of m.speeches.values()) {
    const interrupt = s.interrupts[0];
    if (interrupt === undefined) continue;
    const at = m.at(interrupt).atMs;
    const late = s.frames.find((i) => i > interrupt && m.at(i).atMs > at);
    if (late !== undefined) {
      report(
        `${s.id}: a frame reached the output at ${m.at(late).atMs} ms after the interrupt at ${at} ms`,
        m.at(late).atMs,
        [interrupt, late],
      );
    }
    // Audio already queued in the sink must stop promptly.
    if (m.holder.beforeIndex(interrupt) === s.id) {
      const stop = m.entries('output_audio_end').find(({ index }) => index > interrupt);
      const lastFrame = s.frames.filter((i) => i < interrupt).pop();
      const lastEnd = m
        .entries('output_audio_end')
        .filter(({ index }) => index < interrupt)
        .pop();
      const playing = lastFrame !== undefined && (lastEnd === undefined || lastEnd.index < lastFrame);
      if (playing && (!stop || stop.entry.atMs > at + eps(m) + 50) && at + eps(m) + 50 < m.endMs) {
        report(`${s.id}: its audio kept playing after the interrupt at ${at} ms`, at + eps(m) + 50, [
          interrupt,
        ]);
      }
    }
    let heardMs = 0;
    for (const { index, item } of m.items) {
      if (item.type !== 'message' || item.role !== 'assistant' || index < interrupt) continue;
      if (m.holder.beforeIndex(index) !== s.id) continue;
      const end = m
        .entries('output_audio_end')
        .filter(({ index: i, entry }) => i < index && entry.speechId === s.id)
        .pop();
      heardMs = end?.entry.positionMs ?? 0;
      const text = item.content.filter((c): c is string => typeof c === 'string').join('');
      if (!item.interrupted) {
        report(
          `${s.id}: the assistant message added after its interrupt is not marked interrupted: "${text}"`,
          m.at(index).atMs,
          [interrupt, index],
        );
      } else if (text.length > (heardMs / msPerChar) * 1.25 + 20 && !textOnlyStep(m, s.id, index)) {
        report(
          `${s.id}: its interrupted message holds ${text.length} characters but only about ${Math.round(heardMs / msPerChar)} were heard: "${text}"`,
          m.at(index).atMs,
          [interrupt, index],
        );
      }
    }
  }
}

/** S3: an uninterruptible speech is cut only by a forced interrupt; interrupting a done handle is a no-op. */
export function checkS3(m: LogModel, report: Report): void {
  for (const s of m.speeches.values()) {
    const index = s.interrupts[0];
    if (index === undefined) continue;
    const entry = { reason: m.reasonOf(index), atMs: m.at(index).atMs };
    if (entry.reason === 'forced' || entry.reason === 'close') continue;
    if (!m.interruptibleBefore(s.id, index)) {
      const why = !s.allowInterruptions
        ? 'it was created with allowInterruptions: false'
        : s.disallowedAt !== undefined && s.disallowedAt < index
          ? 'a tool called disallowInterruptions()'
          : 'an interruption hold (an awaited AgentTask) was outstanding';
      report(`${s.id} was interrupted (${entry.reason}) although ${why}`, entry.atMs, [index]);
    }
  }
  for (const { index, entry } of m.entries('handle_interrupt_call')) {
    if (entry.threw !== undefined)
      report(`${entry.speechId}.interrupt() threw: ${entry.threw}`, entry.atMs, [index]);
    if (!entry.wasDone) continue;
    const after = m.speech(entry.speechId)?.interrupts.find((i) => i > index);
    if (after !== undefined)
      report(`interrupting the finished ${entry.speechId} interrupted it`, entry.atMs, [index, after]);
  }
}

/**
 * S4: while a tool awaits an AgentTask, user audio cancels neither the tool nor its speech; tasks awaited
 * by tools of the same speech run one at a time; a finished task generates no reply.
 */
export function checkS4(m: LogModel, report: Report): void {
  const finished = new Map(m.entries('task_finished').map(({ index, entry }) => [entry.taskId, index]));
  for (const { index, entry } of m.entries('task_started')) {
    const parent = entry.parentSpeechId;
    if (!parent) continue;
    const end = finished.get(entry.taskId) ?? m.log.length;
    for (const i of m.speech(parent)?.interrupts ?? []) {
      const e = { reason: m.reasonOf(i), atMs: m.at(i).atMs };
      if (i > index && i < end && USER_REASONS.has(e.reason)) {
        report(
          `${parent} was interrupted by the user (${e.reason}) while its tool awaited ${entry.taskId}`,
          e.atMs,
          [index, i],
        );
      }
    }
  }
  const cancelled = m.entries('tool_finished').filter(({ entry }) => entry.outcome === 'cancelled');
  for (const { index, entry } of m.entries('task_await_start')) {
    const end = m
      .entries('task_await_end')
      .find(({ entry: e }) => e.callId === entry.callId && e.taskId === entry.taskId);
    const c = cancelled.find(
      ({ index: i, entry: e }) => e.callId === entry.callId && i > index && (!end || i < end.index),
    );
    if (!c) continue;
    // Only a cancellation that began while awaiting counts: a tool cut before it awaited is not at fault.
    const interrupts = m.speech(entry.speechId)?.interrupts ?? [];
    if (interrupts.some((i) => i < index)) continue;
    const reason = interrupts.map((i) => m.reasonOf(i))[0];
    if (reason === undefined || USER_REASONS.has(reason)) {
      report(`tool call ${entry.callId} was cancelled while awaiting ${entry.taskId}`, c.entry.atMs, [
        index,
        c.index,
      ]);
    }
  }
  // Tasks awaited by the tools of one speech take turns: never two of them in charge at once.
  const running = new Map<string, { taskId: string; index: number }>();
  m.log.forEach((entry, index) => {
    if (entry.type === 'task_started' && entry.parentSpeechId) {
      const other = running.get(entry.parentSpeechId);
      if (other)
        report(
          `${entry.taskId} started while ${other.taskId}, awaited by the same speech ${entry.parentSpeechId}, still ran`,
          entry.atMs,
          [other.index, index],
        );
      else running.set(entry.parentSpeechId, { taskId: entry.taskId, index });
    } else if (entry.type === 'task_finished') {
      for (const [speech, r] of running) if (r.taskId === entry.taskId) running.delete(speech);
    }
  });
  // A task that has finished says nothing more: the agent in charge after it answers.
  const taskName = (taskId: string): string => taskId.replace(/_\d+$/, '');
  const runningByName = new Map<string, number>();
  m.log.forEach((entry, index) => {
    if (entry.type === 'task_started') {
      const name = taskName(entry.taskId);
      runningByName.set(name, (runningByName.get(name) ?? 0) + 1);
    } else if (entry.type === 'task_finished') {
      const name = taskName(entry.taskId);
      runningByName.set(name, (runningByName.get(name) ?? 1) - 1);
    } else if (entry.type === 'llm_request' && entry.agent !== undefined) {
      if (runningByName.get(entry.agent) === 0)
        report(`the finished task ${entry.agent} asked the LLM for a reply`, entry.atMs, [index]);
    }
  });
  const holds = new Map<string, number>();
  const active = new Map<string, Set<string>>();
  m.log.forEach((entry, index) => {
    if (entry.type === 'task_started' && entry.parentSpeechId) {
      const set = active.get(entry.parentSpeechId) ?? new Set<string>();
      set.add(entry.taskId);
      active.set(entry.parentSpeechId, set);
    } else if (entry.type === 'task_finished') {
      for (const set of active.values()) set.delete(entry.taskId);
    } else if (entry.type === 'interruption_hold') {
      holds.set(entry.speechId, entry.holds);
      const running = active.get(entry.speechId)?.size ?? 0;
      if (entry.holds < 0)
        report(`${entry.speechId} has a negative hold count (${entry.holds})`, entry.atMs, [index]);
      else if (entry.holds === 0 && running > 0) {
        report(
          `${entry.speechId} released its interruption hold while ${running} awaited task(s) still ran`,
          entry.atMs,
          [index],
        );
      }
    }
  });
}

/**
 * S5: tool calls and outputs are recorded once; one `function_tools_executed` per batch, never an empty
 * one; no call reissued.
 */
export function checkS5(m: LogModel, report: Report): void {
  const seen = new Map<string, number>();
  for (const { index, item } of m.items) {
    if (item.type !== 'function_call' && item.type !== 'function_call_output') continue;
    const key = `${item.type}:${item.callId}`;
    const first = seen.get(key);
    if (first !== undefined)
      report(`${item.type} ${item.callId} was added to the history twice`, m.at(index).atMs, [first, index]);
    else seen.set(key, index);
  }
  const inEvent = new Map<string, number>();
  for (const { index, entry } of m.entries('function_tools_executed')) {
    if (entry.callIds.length === 0)
      report(`function_tools_executed for ${entry.speechId} reported no call`, entry.atMs, [index]);
    for (const callId of entry.callIds) {
      const first = inEvent.get(callId);
      if (first !== undefined)
        report(`${callId} was reported by two function_tools_executed events`, entry.atMs, [first, index]);
      else inEvent.set(callId, index);
    }
  }
  const started = new Map<string, number>();
  for (const { index, entry } of m.entries('tool_started')) {
    const first = started.get(entry.callId);
    if (first !== undefined)
      report(`tool call ${entry.callId} was started twice`, entry.atMs, [first, index]);
    else started.set(entry.callId, index);
  }
  if (!m.ended || m.entries('sim_close_timeout').length > 0) return;
  // Calls of one LLM step form a batch: it ends with exactly one event naming them.
  const batches = new Map<string, number[]>();
  for (const { index, entry } of m.entries('llm_tool_call')) {
    // A call the session did not run (a repeat, a re-emission) belongs to no batch.
    if (!entry.speechId || m.sessionCallId(index) === undefined) continue;
    const step = m
      .entries('speech_authorized')
      .filter(({ index: i, entry: e }) => i < index && e.speechId === entry.speechId)
      .pop();
    const key = `${entry.speechId}#${step?.entry.step ?? 0}`;
    batches.set(key, [...(batches.get(key) ?? []), index]);
  }
  for (const [key, calls] of batches) {
    const ids = calls.map((i) => m.sessionCallId(i)!);
    const reported = ids.filter((id) => inEvent.has(id));
    const events = new Set(reported.map((id) => inEvent.get(id)));
    const recorded = ids.some((id) => seen.has(`function_call:${id}`));
    if (recorded && events.size !== 1) {
      report(
        `the tool batch ${key} (${ids.join(', ')}) was reported by ${events.size} function_tools_executed events`,
        m.at(calls[0]!).atMs,
        calls,
      );
    }
  }
}

/** S6: at most one reply is audible per user turn. */
export function checkS6(m: LogModel, report: Report): void {
  const byTurn = new Map<string, string[]>();
  for (const s of m.speeches.values()) {
    const turn = m.turnOf(s.id);
    if (turn && s.frames.length > 0) byTurn.set(turn, [...(byTurn.get(turn) ?? []), s.id]);
  }
  for (const [turn, ids] of byTurn) {
    if (ids.length > 1) {
      const second = m.speech(ids[1]!)!;
      report(
        `${ids.length} replies to ${turn} were audible: ${ids.join(', ')}`,
        m.at(second.frames[0]!).atMs,
        ids.map((id) => m.speech(id)!.createdIndex),
      );
    }
  }
}

/** S7: an interruptible speech sends no frame while the user is speaking. */
export function checkS7(m: LogModel, report: Report): void {
  const flagged = new Set<string>();
  for (const { index, entry } of m.entries('output_frame')) {
    const id = entry.speechId;
    if (!id || flagged.has(id)) continue;
    if (m.userState.at(entry.atMs, true) !== 'speaking' || m.userState.at(entry.atMs) !== 'speaking')
      continue;
    if (!m.interruptibleBefore(id, index)) continue;
    const since = m.userState.changes.filter((c) => c.index < index && c.value === 'speaking').pop();
    flagged.add(id);
    report(
      `${id} (interruptible) sent a frame at ${entry.atMs} ms while the user was speaking (since ${since?.atMs ?? '?'} ms)`,
      entry.atMs,
      [...(since ? [since.index] : []), index],
    );
  }
}

/** S8: the user is never `away` while a tool runs or the agent speaks. */
export function checkS8(m: LogModel, report: Report): void {
  const away = m.userState.intervals('away');
  if (away.length === 0) return;
  const busy: Array<{ start: number; end: number; what: string; index: number }> = [];
  const finished = new Map(m.entries('tool_finished').map(({ entry }) => [entry.callId, entry.atMs]));
  for (const { index, entry } of m.entries('tool_started')) {
    busy.push({
      start: entry.atMs,
      end: finished.get(entry.callId) ?? m.endMs,
      what: `tool ${entry.name} (${entry.callId})`,
      index,
    });
  }
  for (const i of m.agentState.intervals('speaking'))
    busy.push({ start: i.start, end: i.end, what: 'the agent speaking', index: i.startIndex });
  for (const a of away) {
    for (const b of busy) {
      if (Math.max(a.start, b.start) < Math.min(a.end, b.end)) {
        report(
          `userState was "away" from ${a.start} ms during ${b.what} (${b.start}..${b.end} ms)`,
          Math.max(a.start, b.start),
          [a.startIndex, b.index].filter((i) => i >= 0),
        );
        return;
      }
    }
  }
}
