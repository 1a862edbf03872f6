/**
 * Pre-connect recordings as LiveKit's frontends send them, for tests: the web SDK's (Opus in WebM, as
 * `MediaRecorder` writes it) built from real Opus packets (a 600 ms 440 Hz tone encoded with libopus,
 * `room/fixtures/tone-440hz-mono.opus.ogg`).
 */
import { readFileSync } from 'node:fs';
import { OggOpusDemuxer } from '../room/ogg-opus.js';
import { writeWebm } from './webm-writer.js';

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../room/fixtures/${name}`, import.meta.url)));
}

/** 600 ms of a loud tone (the user's voice, to a test VAD) in a MediaRecorder-style WebM. */
export function webSdkRecording(): Uint8Array {
  const ogg = fixtureBytes('tone-440hz-mono.opus.ogg');
  const { packets } = new OggOpusDemuxer().push(ogg);
  const segments = ogg[26]!;
  const opusHead = ogg.slice(27 + segments, 27 + segments + ogg[27]!);
  return writeWebm(packets, { codecPrivate: opusHead, channels: 1 });
}
