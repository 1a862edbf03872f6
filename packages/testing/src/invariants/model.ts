import { type ChatItem, defaultTurnHandling } from '@voxwire/agents';
import type { EntryOf, LogEntry, LogEntryType, SimConfig } from '../log.js';

export interface Violation {
  /** Stable invariant id: L1..L10, S1..S13 (see INVARIANTS). */
  id: string;
  message: string;
  /** Virtual time of the offending moment. */
  atMs: number;
  /** Indexes of the log entries involved. */
  entries: number[];
}

/** Used for logs that carry no `sim_config` (recorded from a real session). */
export const DEFAULT_CONFIG: SimConfig = {
  frameMs: 20,
  vad: { minSpeechMs: 100, minSilenceMs: 500, windowMs: 20 },
  turnHandling: defaultTurnHandling,
  interruptedPlayoutTimeoutMs: 1000,
  playoutWatchdogSlackMs: 2000,
  closeTimeoutMs: 5000,
  userAwayTimeoutMs: 15000,
  output: { bufferMs: 200, canPause: true, finishLagMs: 0, neverFinish: false },
  tts: { msPerChar: 60 },
};

/** A value that changes at log entries; looked up by entry index so same-millisecond order is kept. */
export class StateTimeline<T> {
  private readonly points: Array<{ index: number; atMs: number; value: T }> = [];
  /**
   * Whether the points are in order of index and of time, as a log recorded on one clock is: lookups
   * then search instead of scanning (a check asks once per output frame). A hand-made log that is not
   * is scanned as always.
   */
  private ordered = true;

  constructor(private readonly initial: T) {}

  set(index: number, atMs: number, value: T): void {
    const last = this.points[this.points.length - 1];
    if (last && (index < last.index || atMs < last.atMs)) this.ordered = false;
    this.points.push({ index, atMs, value });
  }

  /** The value just before entry `index`. */
  beforeIndex(index: number): T {
    const points = this.points;
    if (this.ordered) {
      const n = this.firstFrom((p) => p.index >= index);
      return n === 0 ? this.initial : points[n - 1]!.value;
    }
    let value = this.initial;
    for (const p of points) {
      if (p.index >= index) break;
      value = p.value;
    }
    return value;
  }

  /** The value once every entry up to time `t` (included, or excluded with `strict`) has happened. */
  at(t: number, strict = false): T {
    const points = this.points;
    if (this.ordered) {
      const n = strict ? this.firstFrom((p) => p.atMs >= t) : this.firstFrom((p) => p.atMs > t);
      return n === 0 ? this.initial : points[n - 1]!.value;
    }
    let value = this.initial;
    for (const p of points) {
      if (strict ? p.atMs >= t : p.atMs > t) break;
      value = p.value;
    }
    return value;
  }

  /** Whether the value was `value` at any moment of millisecond `t`. */
  wasDuring(t: number, value: T): boolean {
    if (this.at(t, true) === value) return true;
    const points = this.points;
    if (!this.ordered) return points.some((p) => p.atMs === t && p.value === value);
    for (let i = this.firstFrom((p) => p.atMs >= t); i < points.length && points[i]!.atMs === t; i++) {
      if (points[i]!.value === value) return true;
    }
    return false;
  }

  /** How many points come before the first one `reached` holds for; it holds from there on (ordered). */
  private firstFrom(reached: (p: { index: number; atMs: number }) => boolean): number {
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (reached(this.points[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Maximal intervals holding `value`, as [start, end) in ms; `end` is Infinity when still holding. */
  intervals(value: T): Array<{ start: number; end: number; startIndex: number }> {
    const out: Array<{ start: number; end: number; startIndex: number }> = [];
    let current: { start: number; end: number; startIndex: number } | undefined =
      this.initial === value ? { start: 0, end: Number.POSITIVE_INFINITY, startIndex: -1 } : undefined;
    for (const p of this.points) {
      if (p.value === value && !current)
        current = { start: p.atMs, end: Number.POSITIVE_INFINITY, startIndex: p.index };
      else if (p.value !== value && current) {
        current.end = p.atMs;
        out.push(current);
        current = undefined;
      }
    }
    if (current) out.push(current);
    return out;
  }

  get changes(): ReadonlyArray<{ index: number; atMs: number; value: T }> {
    return this.points;
  }
}

export interface SpeechInfo {
  id: string;
  createdIndex: number;
  createdAt: number;
  source: string;
  allowInterruptions: boolean;
  turnId: string | undefined;
  /** Output frames attributed to it (by the speech holding the output). */
  frames: number[];
  interrupts: number[];
  done: number[];
  disallowedAt: number | undefined;
}

export interface VoicedSpan {
  start: number;
  end: number;
  segments: number[];
}

/** The log, indexed for the checks. */
export class LogModel {
  readonly config: SimConfig;
  readonly userState = new StateTimeline<string>('listening');
  readonly agentState = new StateTimeline<string>('initializing');
  /** The speech holding the output (from the scheduler's trace). */
  readonly holder = new StateTimeline<string | undefined>(undefined);
  readonly speeches = new Map<string, SpeechInfo>();
  /** Ground truth of the user's voice: merged scripted segments. */
  readonly spans: VoicedSpan[] = [];
  /** Segments the VAD hears as one utterance (gaps shorter than its min silence). */
  readonly utterances: Array<VoicedSpan & { parts: Array<{ start: number; end: number }> }> = [];
  readonly byType = new Map<LogEntryType, number[]>();
  private readonly entriesByType = new Map<LogEntryType, ReadonlyArray<{ index: number; entry: LogEntry }>>();
  /** Indexes of the entries that name each speech (`speechId`), in log order. */
  readonly bySpeech = new Map<string, number[]>();
  /** Items added to the conversation, in order. */
  readonly items: Array<{ index: number; item: ChatItem }> = [];
  readonly ended: boolean;
  readonly endMs: number;
  readonly closeRequestedAt: number | undefined;
  /** `reply_started` comes just before its `speech_created`. */
  private readonly pendingTurnIds = new Map<string, string | undefined>();

  constructor(readonly log: readonly LogEntry[]) {
    const configEntry = log.find((e) => e.type === 'sim_config') as EntryOf<'sim_config'> | undefined;
    this.config = configEntry?.config ?? DEFAULT_CONFIG;
    const segments = new Map<number, { start: number; end: number }>();
    log.forEach((entry, index) => {
      let list = this.byType.get(entry.type);
      if (!list) {
        list = [];
        this.byType.set(entry.type, list);
      }
      list.push(index);
      if ('speechId' in entry && typeof entry.speechId === 'string') {
        let own = this.bySpeech.get(entry.speechId);
        if (!own) {
          own = [];
          this.bySpeech.set(entry.speechId, own);
        }
        own.push(index);
      }
      switch (entry.type) {
        case 'user_state_changed':
          this.userState.set(index, entry.atMs, entry.newState);
          break;
        case 'agent_state_changed':
          this.agentState.set(index, entry.atMs, entry.newState);
          break;
        case 'speech_authorized':
          this.holder.set(index, entry.atMs, entry.speechId);
          break;
        case 'speech_released':
          if (this.holder.beforeIndex(index) === entry.speechId)
            this.holder.set(index, entry.atMs, undefined);
          break;
        case 'speech_created':
          this.speeches.set(entry.speechId, {
            id: entry.speechId,
            createdIndex: index,
            createdAt: entry.atMs,
            source: entry.source,
            allowInterruptions: entry.allowInterruptions,
            turnId: this.pendingTurnIds.get(entry.speechId),
            frames: [],
            interrupts: [],
            done: [],
            disallowedAt: undefined,
          });
          break;
        case 'reply_started': {
          const s = this.speeches.get(entry.speechId);
          if (s) s.turnId = entry.turnId;
          else this.pendingTurnIds.set(entry.speechId, entry.turnId);
          break;
        }
        case 'output_frame':
          if (entry.speechId) this.speech(entry.speechId)?.frames.push(index);
          break;
        case 'speech_interrupted':
          this.speech(entry.speechId)?.interrupts.push(index);
          break;
        case 'handle_interrupt_call':
          // SpeechHandle.interrupt() leaves no trace of its own: the harness's record stands in for it.
          if (entry.returned) this.speech(entry.speechId)?.interrupts.push(index);
          break;
        case 'speech_done':
          this.speech(entry.speechId)?.done.push(index);
          break;
        case 'tool_step':
          if (entry.step === 'disallow_interruptions') {
            const s = this.speech(entry.speechId);
            if (s && s.disallowedAt === undefined) s.disallowedAt = index;
          }
          break;
        case 'conversation_item_added':
          this.items.push({ index, item: entry.item });
          break;
        case 'user_speech_start':
          segments.set(entry.segment, { start: entry.atMs, end: entry.endMs });
          break;
        case 'user_speech_end': {
          const seg = segments.get(entry.segment);
          if (seg) seg.end = entry.atMs;
          break;
        }
      }
    });
    const ordered = [...segments.entries()].sort((a, b) => a[1].start - b[1].start);
    for (const [code, seg] of ordered) {
      const last = this.spans[this.spans.length - 1];
      if (last && seg.start <= last.end) {
        last.end = Math.max(last.end, seg.end);
        last.segments.push(code);
      } else {
        this.spans.push({ start: seg.start, end: seg.end, segments: [code] });
      }
    }
    // The VAD hears segments closer than its min silence as one utterance.
    const bridge = this.config.vad.minSilenceMs;
    for (const [code, seg] of ordered) {
      const last = this.utterances[this.utterances.length - 1];
      if (last && seg.start < last.end + bridge) {
        last.end = Math.max(last.end, seg.end);
        last.segments.push(code);
        last.parts.push({ start: seg.start, end: seg.end });
      } else {
        this.utterances.push({
          start: seg.start,
          end: seg.end,
          segments: [code],
          parts: [{ start: seg.start, end: seg.end }],
        });
      }
    }
    const endEntry = log.find((e) => e.type === 'sim_end');
    this.ended = endEntry !== undefined;
    this.endMs = endEntry?.atMs ?? log[log.length - 1]?.atMs ?? 0;
    this.closeRequestedAt = this.first('close_requested')?.atMs;
  }

  /** Why the interrupt at `index` (a trace record or a harness `handle.interrupt()` call) happened. */
  reasonOf(index: number): string {
    const entry = this.at(index);
    if (entry.type === 'speech_interrupted') return entry.reason;
    if (entry.type === 'handle_interrupt_call') return entry.force ? 'forced' : 'api';
    return 'unknown';
  }

  speech(id: string): SpeechInfo | undefined {
    return this.speeches.get(id);
  }

  /** The entries that name any of `speechIds`, in log order. */
  entriesOfSpeeches(speechIds: Iterable<string>): LogEntry[] {
    const indexes: number[] = [];
    for (const id of new Set(speechIds)) indexes.push(...(this.bySpeech.get(id) ?? []));
    return indexes.sort((a, b) => a - b).map((i) => this.log[i]!);
  }

  indexes(type: LogEntryType): number[] {
    return this.byType.get(type) ?? [];
  }

  /** The entries of one type, in log order. Made once per type: every check asks for the same few. */
  entries<T extends LogEntryType>(type: T): ReadonlyArray<{ index: number; entry: EntryOf<T> }> {
    let list = this.entriesByType.get(type);
    if (!list) {
      list = this.indexes(type).map((index) => ({ index, entry: this.log[index]! }));
      this.entriesByType.set(type, list);
    }
    return list as ReadonlyArray<{ index: number; entry: EntryOf<T> }>;
  }

  /** The first entry of `type` after the one at `index`, if any. */
  firstAfter<T extends LogEntryType>(
    type: T,
    index: number,
  ): { index: number; entry: EntryOf<T> } | undefined {
    const list = this.entries(type);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.index > index) hi = mid;
      else lo = mid + 1;
    }
    return list[lo];
  }

  /**
   * The id the session gave the model's call at `index` (an `llm_tool_call`): the model's own, a fresh
   * one when the model's was already in use (`tool_call_renamed`), or undefined when the session did not
   * run it (`tool_call_skipped`: a repeat within the response or a re-emitted call). The decision is
   * traced before the model's next call arrives.
   */
  sessionCallId(index: number): string | undefined {
    const call = this.log[index];
    if (call?.type !== 'llm_tool_call') return undefined;
    for (let i = index + 1; i < this.log.length; i++) {
      const e = this.log[i]!;
      if (e.type === 'llm_tool_call') break;
      if (e.type === 'tool_call_skipped' && e.speechId === call.speechId && e.callId === call.callId)
        return undefined;
      if (e.type === 'tool_call_renamed' && e.speechId === call.speechId && e.modelCallId === call.callId)
        return e.callId;
    }
    return call.callId;
  }

  first<T extends LogEntryType>(type: T): EntryOf<T> | undefined {
    const index = this.indexes(type)[0];
    return index === undefined ? undefined : (this.log[index] as EntryOf<T>);
  }

  at(index: number): LogEntry {
    return this.log[index]!;
  }

  /** Time of the first close request, or Infinity. */
  get closeAt(): number {
    return this.closeRequestedAt ?? Number.POSITIVE_INFINITY;
  }

  /** Whether the speech is interruptible by user activity just before entry `index`. */
  interruptibleBefore(speechId: string, index: number): boolean {
    const s = this.speech(speechId);
    if (!s?.allowInterruptions) return false;
    if (s.disallowedAt !== undefined && s.disallowedAt < index) return false;
    let holds = 0;
    for (const { index: i, entry } of this.entries('interruption_hold')) {
      if (i >= index) break;
      if (entry.speechId === speechId) holds = entry.holds;
    }
    const started = new Set(
      this.entries('task_started')
        .filter(({ index: i, entry }) => i < index && entry.parentSpeechId === speechId)
        .map(({ entry }) => entry.taskId),
    );
    let tasks = started.size;
    for (const { index: i, entry } of this.entries('task_finished')) {
      if (i < index && started.has(entry.taskId)) tasks--;
    }
    return holds === 0 && tasks === 0;
  }

  /** The voiced span containing `t`, or the last one that ended before it. */
  spanAtOrBefore(t: number): VoicedSpan | undefined {
    let found: VoicedSpan | undefined;
    for (const span of this.spans) {
      if (span.start > t) break;
      found = span;
    }
    return found;
  }

  /** Voiced ms of the utterance under way (or last ended) at `t`, counted up to `t`. */
  voicedMsAt(t: number): number {
    let found: (typeof this.utterances)[number] | undefined;
    for (const u of this.utterances) {
      if (u.start > t) break;
      found = u;
    }
    if (!found) return 0;
    return found.parts.reduce((sum, p) => sum + Math.max(0, Math.min(t, p.end) - p.start), 0);
  }

  /** Reply speeches per committed turn. */
  turnOf(speechId: string): string | undefined {
    return this.speech(speechId)?.turnId ?? this.pendingTurnIds.get(speechId);
  }
}

export function describe(entry: LogEntry): string {
  const { atMs, src, type, ...rest } = entry as LogEntry & Record<string, unknown>;
  void src;
  const fields = Object.entries(rest)
    .filter(([k]) => k !== 'config')
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  return `${type}@${atMs}${fields ? ` ${fields}` : ''}`;
}
