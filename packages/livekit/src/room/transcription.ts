import type { Logger, TextOutput } from '@voxwire/agents';
import { processId } from '@voxwire/agents/provider-utils';
import type { RoomConnection, TextStreamWriterLike } from './room-connection.js';

/** LiveKit's room conventions, read by its frontends (components, agents playground) and SIP. */
export const TOPIC_TRANSCRIPTION = 'lk.transcription';
export const TOPIC_CHAT = 'lk.chat';
export const ATTRIBUTE_SEGMENT_ID = 'lk.segment_id';
export const ATTRIBUTE_TRANSCRIBED_TRACK_ID = 'lk.transcribed_track_id';
export const ATTRIBUTE_TRANSCRIPTION_FINAL = 'lk.transcription_final';
export const ATTRIBUTE_AGENT_STATE = 'lk.agent.state';

const segmentIds = (): string => processId('SG');

/**
 * The agent's words as they become audible, one text stream per message on `lk.transcription`: opened
 * on the first words, written piece by piece, closed when the message ends or is interrupted. Writes
 * are serialized; a failing stream is logged and the next message starts a new one.
 */
export class AgentTranscriptionOutput implements TextOutput {
  private writer: Promise<TextStreamWriterLike | undefined> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private segmentId: string | undefined;

  constructor(
    private readonly room: RoomConnection,
    private readonly trackSid: () => string | undefined,
    private readonly logger: Logger,
  ) {}

  /** The segment being written, if a message is in progress. */
  get currentSegmentId(): string | undefined {
    return this.segmentId;
  }

  captureText(text: string): void {
    if (text === '') return;
    if (!this.writer) {
      this.segmentId = segmentIds();
      const attributes: Record<string, string> = {
        [ATTRIBUTE_SEGMENT_ID]: this.segmentId,
        // rtc-node's writer cannot add attributes on close, so a streamed segment never says "final";
        // its end of stream does (as with LiveKit's own agents).
        [ATTRIBUTE_TRANSCRIPTION_FINAL]: 'false',
      };
      const track = this.trackSid();
      if (track) attributes[ATTRIBUTE_TRANSCRIBED_TRACK_ID] = track;
      const opening = this.room.streamText({ topic: TOPIC_TRANSCRIPTION, attributes });
      this.writer = opening.catch((error) => {
        this.logger.warn({ error: String(error) }, 'could not open the transcription stream');
        return undefined;
      });
    }
    const writer = this.writer;
    this.enqueue(async () => {
      await (await writer)?.write(text);
    });
  }

  flush(): void {
    const writer = this.writer;
    this.writer = undefined;
    this.segmentId = undefined;
    if (!writer) return;
    this.enqueue(async () => {
      await (await writer)?.close();
    });
  }

  /** Resolves once every write so far has gone out (or failed). */
  settled(): Promise<void> {
    return this.chain;
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((error) => {
      this.logger.warn({ error: String(error) }, 'a transcription write failed');
    });
  }
}

/**
 * The user's transcripts, as LiveKit publishes them: each interim result is a short stream holding the
 * whole text so far with `lk.transcription_final: false`, the final one says `true`, and all of one
 * utterance share a segment id. Sent on behalf of the user, naming their microphone track.
 */
export class UserTranscriptionPublisher {
  private segmentId: string | undefined;
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly room: RoomConnection,
    private readonly logger: Logger,
    /** Interim results waiting beyond this many are skipped (the next one carries the whole text). */
    private readonly maxQueued = 8,
  ) {}

  publish(text: string, isFinal: boolean, sender: { identity: string; trackSid: string | undefined }): void {
    this.segmentId ??= segmentIds();
    const attributes: Record<string, string> = {
      [ATTRIBUTE_SEGMENT_ID]: this.segmentId,
      [ATTRIBUTE_TRANSCRIPTION_FINAL]: String(isFinal),
    };
    if (sender.trackSid) attributes[ATTRIBUTE_TRANSCRIBED_TRACK_ID] = sender.trackSid;
    if (isFinal) this.segmentId = undefined;
    if (!isFinal && this.queued >= this.maxQueued) return;
    this.queued++;
    this.chain = this.chain
      .then(async () => {
        const writer = await this.room.streamText({
          topic: TOPIC_TRANSCRIPTION,
          attributes,
          senderIdentity: sender.identity,
        });
        await writer.write(text);
        await writer.close();
      })
      .catch((error) => {
        this.logger.warn({ error: String(error) }, 'could not publish a user transcript');
      })
      .finally(() => {
        this.queued--;
      });
  }

  settled(): Promise<void> {
    return this.chain;
  }
}
