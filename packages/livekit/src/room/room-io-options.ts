import type { AgentSession } from '@voxwire/agents';
import type { PreConnectAudioEvent } from './pre-connect-audio.js';
import type { ParticipantInfo, ParticipantKind } from './room-connection.js';

/** A keypad digit a SIP caller pressed. */
export interface DtmfEvent {
  digit: string;
  code: number;
  participant: ParticipantInfo;
}

export interface RoomIOOptions {
  /**
   * The participant the agent talks to. Default: the job's participant (publisher jobs), else the first
   * participant of an accepted kind already in the room or joining it.
   */
  participantIdentity?: string;
  /** Kinds the agent links to. Default `['standard', 'sip']` (SIP callers are ordinary users). */
  participantKinds?: ParticipantKind[];
  /** The user's audio as the session receives it. Default 24000 Hz. */
  inputSampleRate?: number;
  /** Default 1. */
  inputChannels?: number;
  /** The agent's published track. Default 24000 Hz. */
  outputSampleRate?: number;
  /** Default 1. */
  outputChannels?: number;
  /** Audio the native source buffers ahead of playback: what an interruption throws away. Default 400 ms. */
  outputQueueSizeMs?: number;
  /** Publish transcripts on the `lk.transcription` text stream topic. Default true. */
  transcription?: boolean;
  /** Turn text received on `lk.chat` into user turns. Default true. */
  textInput?: boolean;
  /** End the job when the linked participant leaves. Default true. */
  closeOnParticipantLeave?: boolean;
  /** Longest wait for a participant to link to before the job ends. Default Infinity. */
  participantWaitTimeoutMs?: number;
  /**
   * Play the audio a frontend recorded before the agent joined (LiveKit's pre-connect audio buffer, on
   * the `lk.agent.pre-connect-audio-buffer` byte stream) into the session ahead of the microphone's live
   * frames, so the user's first words are heard. Raw PCM only (LiveKit's native SDKs); the web SDK's
   * Opus recording is refused (`onPreConnectAudio` tells). Default true.
   */
  preConnectAudio?: boolean;
  /**
   * Longest the linked microphone waits for its pre-connect buffer to arrive and finish (its live frames
   * queue meanwhile); then what has arrived is played. Default 3000 ms.
   */
  preConnectAudioTimeoutMs?: number;
  /** Most pre-connect audio kept per track: the most recent is kept. Default 10000 ms. */
  preConnectAudioMaxDurationMs?: number;
  /** What became of each pre-connect buffer: played (how much) or refused (a `PreConnectAudioError`). */
  onPreConnectAudio?: (event: PreConnectAudioEvent) => void;
  /**
   * Receives the linked participant's keypad digits (SIP callers), with the session when one is
   * connected. They also reach the session as its `dtmf_received` event (`session.on('dtmf_received')`),
   * which is the way to listen from an agent's `entry`, in job processes too; this hook sees them first.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a room hosts sessions of any user data type.
  onDtmf?: (event: DtmfEvent, session: AgentSession<any> | undefined) => void;
}

export const ROOM_IO_DEFAULTS = Object.freeze({
  participantKinds: ['standard', 'sip'] as readonly ParticipantKind[],
  inputSampleRate: 24_000,
  inputChannels: 1,
  outputSampleRate: 24_000,
  outputChannels: 1,
  outputQueueSizeMs: 400,
  transcription: true,
  textInput: true,
  closeOnParticipantLeave: true,
  participantWaitTimeoutMs: Number.POSITIVE_INFINITY,
  preConnectAudio: true,
  preConnectAudioTimeoutMs: 3000,
  preConnectAudioMaxDurationMs: 10_000,
});
