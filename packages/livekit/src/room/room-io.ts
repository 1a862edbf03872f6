import {
  type AgentSession,
  type AgentState,
  type Clock,
  dtmfCode,
  dtmfDigit,
  type JobNotice,
  type JobTransport,
  type Logger,
  type SessionIO,
} from '@voxwire/agents';
import type { WorkerMetrics } from '../worker/metrics.js';
import { RoomAudioInput } from './room-audio-input.js';
import { RoomAudioOutput } from './room-audio-output.js';
import type { AudioSink, ParticipantInfo, RoomConnection, RoomEvent } from './room-connection.js';
import { ROOM_IO_DEFAULTS, type RoomIOOptions } from './room-io-options.js';
import { PreConnectAudioReceiver } from './pre-connect-audio.js';
import {
  ATTRIBUTE_AGENT_STATE,
  AgentTranscriptionOutput,
  TOPIC_CHAT,
  UserTranscriptionPublisher,
} from './transcription.js';

// biome-ignore lint/suspicious/noExplicitAny: a room hosts sessions of any user data type.
type AnySession = AgentSession<any>;

export interface RoomIOInit {
  clock: Clock;
  logger: Logger;
  options?: RoomIOOptions;
  /** The participant named by the job (publisher jobs), linked unless the options name another. */
  jobParticipantIdentity?: string | undefined;
  /** Asks the job to end (the linked participant left, the room closed). */
  endJob(reason: string): void;
  /** Where the session's turn latencies and errors are counted (the worker's metrics). */
  metrics?: Pick<WorkerMetrics, 'sessionStarted' | 'turn' | 'error'>;
}

/**
 * A session's I/O in a LiveKit room, following LiveKit's conventions so its frontends and SIP work
 * unchanged. It links to one participant: their microphone is the session's audio input (silence
 * while it is muted or absent), the agent's voice is a published track, the agent's state is the
 * `lk.agent.state` attribute, transcripts of both sides go out on `lk.transcription`, and text on
 * `lk.chat` becomes a user turn. When the linked participant leaves, the job ends (configurable).
 */
export class RoomIO implements JobTransport {
  readonly name = 'livekit';
  private readonly options: Required<
    Omit<RoomIOOptions, 'participantIdentity' | 'onDtmf' | 'onPreConnectAudio'>
  > & {
    participantIdentity: string | undefined;
    onDtmf: RoomIOOptions['onDtmf'];
    onPreConnectAudio: RoomIOOptions['onPreConnectAudio'];
  };
  private readonly preConnect: PreConnectAudioReceiver | undefined;
  /** Who owns each microphone the input was given, and whether it announced a pre-connect buffer. */
  private readonly trackOwners = new Map<string, { identity: string; preConnectBuffer: boolean }>();
  private readonly controller = new AbortController();
  private readonly input: RoomAudioInput;
  private readonly output: RoomAudioOutput;
  private readonly transcription: AgentTranscriptionOutput;
  private readonly userTranscripts: UserTranscriptionPublisher;
  private readonly unsubscribers: Array<() => void> = [];
  private readonly participantWaiters: Array<{
    identity: string | undefined;
    resolve: (p: ParticipantInfo) => void;
  }> = [];
  private published: Promise<AudioSink> | undefined;
  private agentTrackSid: string | undefined;
  private linked: ParticipantInfo | undefined;
  private linkedTrackSid: string | undefined;
  private session: AnySession | undefined;
  private stateToWrite: AgentState | undefined;
  private stateWriter: Promise<void> | undefined;
  private waitTimer: { cancel(): void } | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly room: RoomConnection,
    private readonly init: RoomIOInit,
  ) {
    const given = init.options ?? {};
    this.options = {
      ...ROOM_IO_DEFAULTS,
      ...stripUndefined(given),
      participantKinds: [...(given.participantKinds ?? ROOM_IO_DEFAULTS.participantKinds)],
      participantIdentity: given.participantIdentity ?? init.jobParticipantIdentity,
      onDtmf: given.onDtmf,
      onPreConnectAudio: given.onPreConnectAudio,
    };
    const preConnect = this.options.preConnectAudio
      ? new PreConnectAudioReceiver(room, {
          clock: init.clock,
          logger: init.logger,
          sampleRate: this.options.inputSampleRate,
          channels: this.options.inputChannels,
          timeoutMs: this.options.preConnectAudioTimeoutMs,
          maxDurationMs: this.options.preConnectAudioMaxDurationMs,
          onEvent: this.options.onPreConnectAudio,
        })
      : undefined;
    this.preConnect = preConnect;
    this.input = new RoomAudioInput(room, {
      sampleRate: this.options.inputSampleRate,
      channels: this.options.inputChannels,
      clock: init.clock,
      signal: this.controller.signal,
      ...(preConnect
        ? {
            beforeTrack: (trackSid, signal) => {
              const owner = this.trackOwners.get(trackSid);
              if (!owner) return Promise.resolve([]);
              return preConnect.take(trackSid, owner.identity, {
                expected: owner.preConnectBuffer,
                signal,
              });
            },
          }
        : {}),
    });
    this.output = new RoomAudioOutput(
      new Promise<AudioSink>((resolve, reject) => {
        this.resolveSink = resolve;
        this.rejectSink = reject;
      }),
      this.options.outputSampleRate,
      init.clock,
      init.logger,
    );
    this.transcription = new AgentTranscriptionOutput(room, () => this.agentTrackSid, init.logger);
    this.userTranscripts = new UserTranscriptionPublisher(room, init.logger);
  }

  private resolveSink!: (sink: AudioSink) => void;
  private rejectSink!: (error: unknown) => void;

  /** The participant the session talks to, once linked. */
  get linkedParticipant(): ParticipantInfo | undefined {
    return this.linked;
  }

  get audioInput(): RoomAudioInput {
    return this.input;
  }

  get audioOutput(): RoomAudioOutput {
    return this.output;
  }

  /** Starts following the room: publishes the agent track, links a participant, listens to `lk.chat`. */
  start(): void {
    if (this.started) return;
    this.started = true;
    // First, so a buffer the frontend sent as the agent joined is taken from the room's hold at once.
    this.preConnect?.start();
    this.unsubscribers.push(this.room.onEvent((event) => this.onRoomEvent(event)));
    if (this.options.textInput) {
      this.unsubscribers.push(this.room.onText(TOPIC_CHAT, (text, sender) => this.onChat(text, sender)));
    }
    this.published = this.room
      .publishAudio({
        sampleRate: this.options.outputSampleRate,
        channels: this.options.outputChannels,
        queueSizeMs: this.options.outputQueueSizeMs,
        trackName: 'agent_voice',
      })
      .then((published) => {
        this.agentTrackSid = published.trackSid;
        this.resolveSink(published.sink);
        return published.sink;
      });
    this.published.catch((error) => this.rejectSink(error));
    for (const participant of this.room.remoteParticipants()) this.considerParticipant(participant);
    if (!this.linked && Number.isFinite(this.options.participantWaitTimeoutMs)) {
      this.waitTimer = this.init.clock.setTimer(this.options.participantWaitTimeoutMs, () => {
        if (!this.linked) this.init.endJob('no participant joined');
      });
    }
  }

  /** Resolves when the named participant (default: the linked one) is in the room. */
  waitForParticipant(identity?: string, signal?: AbortSignal): Promise<ParticipantInfo> {
    const present = identity
      ? this.room.remoteParticipants().find((p) => p.identity === identity)
      : this.linked;
    if (present) return Promise.resolve(present);
    return new Promise((resolve, reject) => {
      const waiter = { identity, resolve };
      this.participantWaiters.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.participantWaiters.indexOf(waiter);
          if (i >= 0) this.participantWaiters.splice(i, 1);
          reject(signal.reason ?? new Error('the job ended'));
        },
        { once: true },
      );
    });
  }

  io(): SessionIO {
    return {
      input: { audio: this.input },
      output: {
        audio: this.output,
        ...(this.options.transcription ? { text: this.transcription } : {}),
      },
    };
  }

  onSessionConnected(session: AnySession): void {
    this.session = session;
    const metrics = this.init.metrics;
    if (metrics) {
      metrics.sessionStarted();
      session.on('metrics_collected', ({ metrics: m }) => {
        if (m.type === 'turn') metrics.turn(m.endToEndLatencyMs);
      });
      session.on('error', (event) => metrics.error(event.source));
    }
    this.writeAgentState(session.agentState);
    session.on('agent_state_changed', (event) => this.writeAgentState(event.newState));
    if (this.options.transcription) {
      session.on('user_input_transcribed', (event) => {
        if (!this.linked || event.transcript === '') return;
        this.userTranscripts.publish(event.transcript, event.isFinal, {
          identity: this.linked.identity,
          trackSid: this.linkedTrackSid,
        });
      });
    }
  }

  notify(notice: JobNotice): void {
    // A room has no place for operator messages; they go to the job's log (JobContext already logged).
    void notice;
  }

  onJobEnded(): void {
    void this.close();
  }

  /** Stops following the room and releases the tracks; bounded, never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waitTimer?.cancel();
    this.controller.abort(new Error('the job ended'));
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    this.preConnect?.close();
    this.input.close();
    await this.output.close();
    this.published?.catch(() => {});
    await Promise.allSettled([
      this.transcription.settled(),
      this.userTranscripts.settled(),
      this.stateWriter,
    ]);
  }

  private onRoomEvent(event: RoomEvent): void {
    if (this.closed) return;
    switch (event.type) {
      case 'participant_connected':
        this.considerParticipant(event.participant);
        for (const waiter of [...this.participantWaiters]) {
          if (waiter.identity === event.participant.identity) this.resolveWaiter(waiter, event.participant);
        }
        break;
      case 'participant_disconnected':
        if (this.linked?.identity !== event.participant.identity) break;
        this.init.logger.info({ participant: event.participant.identity }, 'the linked participant left');
        this.linked = undefined;
        this.linkedTrackSid = undefined;
        this.input.setTrack(undefined);
        if (this.options.closeOnParticipantLeave) this.init.endJob('participant left');
        else for (const p of this.room.remoteParticipants()) this.considerParticipant(p);
        break;
      case 'audio_track_subscribed':
        if (this.linked?.identity === event.participant.identity && event.source === 'microphone') {
          this.linkedTrackSid = event.trackSid;
          this.trackOwners.set(event.trackSid, {
            identity: event.participant.identity,
            preConnectBuffer: event.preConnectBuffer === true,
          });
          this.input.setMuted(false);
          this.input.setTrack(event.trackSid);
        }
        break;
      case 'audio_track_unsubscribed':
        if (this.linkedTrackSid === event.trackSid) {
          this.linkedTrackSid = undefined;
          this.input.setTrack(undefined);
        }
        break;
      case 'track_muted':
        if (this.linkedTrackSid === event.trackSid) this.input.setMuted(true);
        break;
      case 'track_unmuted':
        if (this.linkedTrackSid === event.trackSid) this.input.setMuted(false);
        break;
      case 'dtmf':
        if (this.linked?.identity !== event.participant.identity) break;
        this.init.logger.debug(
          { participant: event.participant.identity, digit: event.digit },
          'DTMF received',
        );
        try {
          this.options.onDtmf?.(
            { digit: event.digit, code: event.code, participant: event.participant },
            this.session,
          );
        } catch (error) {
          this.init.logger.warn({ error: String(error) }, 'onDtmf failed');
        }
        this.deliverDtmf(event);
        break;
      case 'disconnected':
        this.init.endJob(`room disconnected: ${event.reason}`);
        break;
    }
  }

  /**
   * The key press as the session's `dtmf_received` event (a session that is not connected yet misses
   * it). The digit is what counts: a code that disagrees with it is left out, a missing digit is taken
   * from the code, and an event with neither is dropped with a warning.
   */
  private deliverDtmf(event: Extract<RoomEvent, { type: 'dtmf' }>): void {
    const session = this.session;
    if (!session || session.closed) return;
    const digit = dtmfCode(event.digit) !== undefined ? event.digit : dtmfDigit(event.code);
    if (digit === undefined) {
      this.init.logger.warn({ digit: event.digit, code: event.code }, 'DTMF event without a usable key');
      return;
    }
    session.receiveDtmf({
      digit,
      ...(dtmfCode(digit) === event.code ? { code: event.code } : {}),
      participantIdentity: event.participant.identity,
    });
  }

  private considerParticipant(participant: ParticipantInfo): void {
    if (this.linked) return;
    const wanted = this.options.participantIdentity;
    if (
      wanted ? participant.identity !== wanted : !this.options.participantKinds.includes(participant.kind)
    ) {
      return;
    }
    this.linked = participant;
    this.waitTimer?.cancel();
    // Their microphone may be subscribed already (they were in the room before the agent).
    const mic = this.room.remoteAudioTracks(participant.identity).find((t) => t.source === 'microphone');
    if (mic) {
      this.linkedTrackSid = mic.trackSid;
      this.trackOwners.set(mic.trackSid, {
        identity: participant.identity,
        preConnectBuffer: mic.preConnectBuffer === true,
      });
      this.input.setTrack(mic.trackSid);
      this.input.setMuted(mic.muted);
    }
    this.init.logger.info(
      { participant: participant.identity, kind: participant.kind },
      'linked to a participant',
    );
    for (const waiter of [...this.participantWaiters]) {
      if (waiter.identity === undefined || waiter.identity === participant.identity) {
        this.resolveWaiter(waiter, participant);
      }
    }
  }

  private resolveWaiter(
    waiter: { identity: string | undefined; resolve: (p: ParticipantInfo) => void },
    participant: ParticipantInfo,
  ): void {
    const i = this.participantWaiters.indexOf(waiter);
    if (i >= 0) this.participantWaiters.splice(i, 1);
    waiter.resolve(participant);
  }

  private onChat(text: string, sender: ParticipantInfo | undefined): void {
    const session = this.session;
    if (!session || session.closed || text.trim() === '') return;
    // Only the linked participant speaks for the user; others in the room are bystanders.
    if (this.linked && sender && sender.identity !== this.linked.identity) return;
    void session
      .interrupt()
      .catch(() => {})
      .then(() => {
        if (!session.closed) session.generateReply({ userInput: text });
      });
  }

  /** Keeps the attribute at the latest state, with one write in flight at a time (older states are skipped). */
  private writeAgentState(state: AgentState): void {
    this.stateToWrite = state;
    if (this.stateWriter) return;
    this.stateWriter = (async () => {
      let written: AgentState | undefined;
      while (this.stateToWrite !== undefined && this.stateToWrite !== written && !this.closed) {
        const next = this.stateToWrite;
        try {
          await this.room.setLocalAttributes({ [ATTRIBUTE_AGENT_STATE]: next });
        } catch (error) {
          this.init.logger.warn({ error: String(error) }, 'could not set lk.agent.state');
        }
        written = next;
      }
      this.stateWriter = undefined;
    })();
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
