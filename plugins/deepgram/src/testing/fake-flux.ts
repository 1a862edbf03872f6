import type { RawData, WebSocket } from 'ws';
import { CodedSpeechRecognizer, type HeardWord } from './coded-speech.js';
import {
  applyLiveFaults,
  type FakeDeepgramServer,
  type LiveConnectionRecord,
  type Outbox,
} from './fake-deepgram-server.js';

/** Silence after the last word before the fake's eager end of turn, and its end of turn. */
export const FAKE_FLUX_EAGER_MS = 200;
export const FAKE_FLUX_END_OF_TURN_MS = 500;
/** While nobody speaks, an `Update` this often. */
const IDLE_UPDATE_MS = 1_000;

/**
 * One `/v2/listen` (Flux) connection: `Connected`, then `TurnInfo` events (`StartOfTurn`, `Update`,
 * `EagerEndOfTurn` when `eager_eot_threshold` is set, `TurnResumed`, `EndOfTurn`) over the coded
 * test audio; `CloseStream` ends the turn in progress and closes.
 */
export class FakeFluxSession {
  private readonly recognizer: CodedSpeechRecognizer;
  private readonly eager: boolean;
  private sequence = 0;
  private turnIndex = 0;
  private turnStartMs = 0;
  private words: HeardWord[] = [];
  private inTurn = false;
  private eagerSent = false;
  private lastWordEndMs = 0;
  private lastUpdateMs = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly record: LiveConnectionRecord,
    private readonly index: number,
    private readonly outbox: Outbox,
    private readonly server: FakeDeepgramServer,
  ) {
    this.recognizer = new CodedSpeechRecognizer(Number(record.query.get('sample_rate') ?? 16_000));
    this.eager = record.query.get('eager_eot_threshold') !== null;
    this.outbox.send({ type: 'Connected', request_id: record.requestId, sequence_id: this.sequence++ });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = Buffer.isBuffer(data)
        ? data
        : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
      if (isBinary) this.onAudio(bytes);
      else this.onControl(bytes.toString('utf8'));
    });
    ws.on('close', () => {
      record.closed = true;
    });
  }

  private onAudio(bytes: Buffer): void {
    this.record.binaryFrames++;
    const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const { words, started } = this.recognizer.feed(samples);
    this.record.audioMs = this.recognizer.positionMs;
    if (started.length > 0) {
      if (!this.inTurn) {
        this.inTurn = true;
        this.turnStartMs = started[0]!;
        this.turnInfo('StartOfTurn');
      } else if (this.eagerSent) {
        this.eagerSent = false;
        this.turnInfo('TurnResumed');
      }
    }
    for (const word of words) {
      this.words.push(word);
      this.lastWordEndMs = word.endMs;
      this.turnInfo('Update');
    }
    const position = this.recognizer.positionMs;
    const silentMs = position - this.lastWordEndMs;
    if (this.inTurn && !this.recognizer.inWord && this.words.length > 0) {
      if (this.eager && !this.eagerSent && silentMs >= FAKE_FLUX_EAGER_MS) {
        this.eagerSent = true;
        this.turnInfo('EagerEndOfTurn');
      }
      if (silentMs >= FAKE_FLUX_END_OF_TURN_MS) this.endTurn();
    } else if (!this.inTurn && position - this.lastUpdateMs >= IDLE_UPDATE_MS) {
      this.turnStartMs = position;
      this.turnInfo('Update');
    }
    applyLiveFaults(this.server, this.index, position, this.ws, this.outbox);
  }

  private onControl(text: string): void {
    let message: unknown = text;
    try {
      message = JSON.parse(text);
    } catch {}
    this.record.controls.push(message);
    const type = (message as { type?: unknown } | null)?.type;
    if (type === 'ForceEndTurn') {
      this.record.finalizes++;
      const cut = this.recognizer.cutWord();
      if (cut) this.words.push(cut);
      if (this.inTurn) this.endTurn('manual');
    } else if (type === 'CloseStream') {
      // As documented: the rest is decoded into Updates, no EndOfTurn, and no close status code.
      this.record.closeStreams++;
      const cut = this.recognizer.cutWord();
      if (cut) {
        this.words.push(cut);
        this.turnInfo('Update');
      }
      this.outbox.close(undefined, undefined);
    }
  }

  private endTurn(trigger = 'model'): void {
    this.turnInfo('EndOfTurn', trigger);
    this.turnIndex++;
    this.inTurn = false;
    this.eagerSent = false;
    this.words = [];
    this.turnStartMs = this.recognizer.positionMs;
  }

  private turnInfo(event: string, trigger?: string): void {
    this.lastUpdateMs = this.recognizer.positionMs;
    this.outbox.send({
      type: 'TurnInfo',
      request_id: this.record.requestId,
      sequence_id: this.sequence++,
      event,
      turn_index: this.turnIndex,
      audio_window_start: this.turnStartMs / 1000,
      audio_window_end: this.recognizer.positionMs / 1000,
      transcript: this.words.map((w) => w.word).join(' '),
      words: this.words.map((w) => ({
        word: w.word,
        confidence: 0.9,
        start: w.startMs / 1000,
        end: w.endMs / 1000,
      })),
      end_of_turn_confidence: event === 'EndOfTurn' ? 0.9 : event === 'EagerEndOfTurn' ? 0.6 : 0.1,
      ...(trigger ? { trigger } : {}),
    });
  }
}
