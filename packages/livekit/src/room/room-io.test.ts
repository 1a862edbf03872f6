import {
  Agent,
  AgentSession,
  type Clock,
  type DtmfReceivedEvent,
  silentLogger,
  VirtualClock,
} from '@voxwire/agents';
import { type Channel, frameToBytes } from '@voxwire/agents/provider-utils';
import { FakeLLM, FakeSTT, FakeTTS, ScriptedVAD, silentFrame, voicedFrame } from '@voxwire/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeRoom, participant } from '../testing/fake-room.js';
import type { AudioFrame } from '@voxwire/agents';
import { WorkerMetrics } from '../worker/metrics.js';
import type { PreConnectAudioEvent } from './pre-connect-audio.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './pre-connect-format.js';
import { RoomIO } from './room-io.js';
import { webSdkRecording } from '../testing/recordings.js';
import { warmOpusDecoder } from './opus-to-session-format.js';

// The decoder compiles its WebAssembly in real time, which a virtual clock would otherwise outrun.
beforeAll(() => warmOpusDecoder());
import type { RoomIOOptions } from './room-io-options.js';

const RATE = 24_000;
const ended: string[] = [];
const sessions: AgentSession[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  ended.length = 0;
});

function setup(options: RoomIOOptions = {}, jobParticipantIdentity?: string, clock = new VirtualClock()) {
  const room = new FakeRoom(clock);
  const metrics = new WorkerMetrics();
  const io = new RoomIO(room, {
    clock,
    logger: silentLogger,
    options,
    jobParticipantIdentity,
    endJob: (reason) => ended.push(reason),
    metrics,
  });
  return { clock, room, io, metrics };
}

async function startSession(
  clock: Clock,
  io: RoomIO,
  utterances = [{ transcript: 'hello there', durationMs: 600 }],
) {
  const session = new AgentSession({
    clock,
    vad: new ScriptedVAD({ minSilenceDurationMs: 300 }),
    stt: new FakeSTT({ clock, utterances, interimIntervalMs: 200 }),
    llm: new FakeLLM({ clock, replies: [{ text: 'Hi, how can I help?' }] }),
    tts: new FakeTTS({ clock, sampleRate: RATE, msPerChar: 20 }),
  });
  sessions.push(session);
  io.onSessionConnected(session);
  await session.start({ agent: new Agent({ instructions: 'Be brief.' }), ...io.io() });
  return session;
}

/** The user's microphone at real pace on the clock: voiced for `voicedMs` (segment `code`), then silent. */
async function speak(clock: Clock, mic: Channel<AudioFrame>, voicedMs: number, silentMs: number, code = 0) {
  for (let t = 0; t < voicedMs + silentMs; t += 20) {
    await clock.sleep(20);
    await mic.send(t < voicedMs ? voicedFrame(code, 20, RATE) : silentFrame(20, RATE));
  }
}

async function until(clock: VirtualClock, test: () => boolean, maxMs = 20_000): Promise<void> {
  const start = clock.now();
  while (!test() && clock.now() - start < maxMs) await clock.sleep(20);
  expect(test()).toBe(true);
}

describe('RoomIO: linking a participant', () => {
  it('links the first standard or SIP participant, not another agent', async () => {
    const { room, io } = setup();
    io.start();
    const linked = io.waitForParticipant();
    room.join(participant('other-agent', 'agent'));
    expect(io.linkedParticipant).toBeUndefined();
    room.join(participant('+15551234', 'sip'));
    expect((await linked).identity).toBe('+15551234');
    room.join(participant('alice'));
    expect(io.linkedParticipant?.identity).toBe('+15551234');
  });

  it('links the job participant of a publisher job, or the one the options name', async () => {
    const job = setup({}, 'bob');
    job.room.join(participant('alice'));
    job.io.start();
    expect(job.io.linkedParticipant).toBeUndefined();
    job.room.join(participant('bob'));
    expect(job.io.linkedParticipant?.identity).toBe('bob');
    const named = setup({ participantIdentity: 'carol' }, 'bob');
    named.room.join(participant('carol'));
    named.io.start();
    expect(named.io.linkedParticipant?.identity).toBe('carol');
    expect((await named.io.waitForParticipant('carol')).identity).toBe('carol');
  });

  it('ends the job when the linked participant leaves, or links the next one when configured not to', async () => {
    const closing = setup();
    closing.room.join(participant('alice'));
    closing.io.start();
    closing.room.leave('alice');
    expect(ended).toEqual(['participant left']);
    ended.length = 0;
    const staying = setup({ closeOnParticipantLeave: false });
    staying.room.join(participant('alice'));
    staying.room.join(participant('bob'));
    staying.io.start();
    staying.room.leave('alice');
    expect(ended).toEqual([]);
    expect(staying.io.linkedParticipant?.identity).toBe('bob');
  });

  it('ends the job when nobody joins in time, or when the room goes away', async () => {
    const lonely = setup(
      { participantWaitTimeoutMs: 5000 },
      undefined,
      new VirtualClock({ autoAdvance: false }),
    );
    lonely.io.start();
    await lonely.clock.advance(4999);
    expect(ended).toEqual([]);
    await lonely.clock.advance(1);
    expect(ended).toEqual(['no participant joined']);
    const gone = setup();
    gone.io.start();
    gone.room.closeRoom('ROOM_DELETED');
    expect(ended).toEqual(['no participant joined', 'room disconnected: ROOM_DELETED']);
  });

  it("passes the linked caller's DTMF digits to onDtmf, with the session", async () => {
    const digits: string[] = [];
    const { room, io } = setup({
      onDtmf: (event) => digits.push(`${event.participant.identity}:${event.digit}`),
    });
    room.join(participant('+15551234', 'sip'));
    room.join(participant('someone-else'));
    io.start();
    room.dtmf('+15551234', '4');
    room.dtmf('someone-else', '9');
    room.dtmf('+15551234', '#');
    expect(digits).toEqual(['+15551234:4', '+15551234:#']);
  });

  it('picks up the microphone of a participant who was in the room before the agent, muted or not', async () => {
    const { room, io } = setup();
    room.join(participant('alice'));
    room.publishMicrophone('alice', 'TR_early');
    room.mute('alice', 'TR_early');
    io.start();
    expect(io.audioInput.currentTrackSid).toBe('TR_early');
    expect(io.audioInput.isMuted).toBe(true);
    room.mute('alice', 'TR_early', false);
    expect(io.audioInput.isMuted).toBe(false);
  });

  it('stops following the room when closed', async () => {
    const { room, io } = setup();
    io.start();
    expect(room.listenerCount).toBe(1);
    await io.close();
    expect(room.listenerCount).toBe(0);
    expect(room.sink?.closed).toBe(true);
  });
});

describe('RoomIO: a conversation in the room', () => {
  it('hears the linked microphone, speaks on the agent track, and publishes states and transcripts', async () => {
    const { clock, room, io, metrics } = setup();
    room.join(participant('alice'));
    io.start();
    const session = await startSession(clock, io);
    const mic = room.publishMicrophone('alice', 'TR_alice');
    await speak(clock, mic, 600, 400);
    await until(clock, () =>
      session.history.items.some((i) => i.type === 'message' && i.role === 'assistant'),
    );
    await until(clock, () => session.agentState === 'listening');
    await io.close();

    // The agent's voice reached the published track.
    expect(room.sink!.capturedMs).toBeGreaterThan(300);
    // lk.agent.state followed the session.
    const states = room.attributeHistory.map((a) => a['lk.agent.state']);
    expect(states).toContain('thinking');
    expect(states).toContain('speaking');
    expect(states.at(-1)).toBe('listening');
    // The user's transcript: on their behalf, naming their track, interims then a final of one segment.
    const user = room.texts.filter((t) => t.senderIdentity === 'alice');
    expect(user.length).toBeGreaterThan(0);
    const final = user.at(-1)!;
    expect(final).toMatchObject({
      topic: 'lk.transcription',
      text: 'hello there',
      closed: true,
      attributes: { 'lk.transcription_final': 'true', 'lk.transcribed_track_id': 'TR_alice' },
    });
    for (const t of user) expect(t.attributes['lk.segment_id']).toBe(final.attributes['lk.segment_id']);
    // The agent's transcript: one stream for the message, naming the agent's track.
    const agent = room.texts.filter((t) => t.senderIdentity === undefined);
    expect(agent).toHaveLength(1);
    expect(agent[0]).toMatchObject({
      topic: 'lk.transcription',
      text: 'Hi, how can I help?',
      closed: true,
      attributes: { 'lk.transcribed_track_id': 'TR_agent' },
    });
    expect(agent[0]!.attributes['lk.segment_id']).not.toBe(final.attributes['lk.segment_id']);
    // The turn reached the worker's metrics.
    expect(metrics.snapshot()).toMatchObject({ sessionsStarted: 1, turns: 1, errors: {} });
    expect(metrics.snapshot().turnLatencyMs?.p50).toBeGreaterThan(0);
  });

  it('turns lk.chat text from the linked participant into a user turn, and ignores bystanders', async () => {
    const { clock, room, io } = setup();
    room.join(participant('alice'));
    room.join(participant('bystander'));
    io.start();
    const session = await startSession(clock, io);
    room.chat('is anyone there?', 'bystander');
    room.chat('what are your hours?', 'alice');
    await until(clock, () =>
      session.history.items.some((i) => i.type === 'message' && i.role === 'assistant'),
    );
    const users = session.history.items.filter((i) => i.type === 'message' && i.role === 'user');
    expect(users.map((u) => (u.type === 'message' ? u.content : undefined))).toEqual([
      ['what are your hours?'],
    ]);
  });

  it('treats a muted microphone as silence, so the user stops speaking at once and is heard again on unmute', async () => {
    const { clock, room, io } = setup();
    room.join(participant('alice'));
    io.start();
    const session = await startSession(clock, io);
    const mic = room.publishMicrophone('alice', 'TR_alice');
    // The user is mid-word when the microphone goes mute: no more frames come from the track.
    await speak(clock, mic, 400, 0);
    await until(clock, () => session.userState === 'speaking');
    room.mute('alice', 'TR_alice');
    const mutedAt = clock.now();
    // A muted track that still carries sound is read (nothing piles up) but not heard.
    void speak(clock, mic, 1000, 0);
    await until(clock, () => session.userState === 'listening', 2000);
    expect(clock.now() - mutedAt).toBeLessThanOrEqual(300 + 100);
    expect(io.audioInput.stats.silenceFrames).toBeGreaterThan(0);
    await clock.sleep(1000);
    expect(session.userState).toBe('listening');
    expect(mic.size).toBe(0);
    room.mute('alice', 'TR_alice', false);
    void speak(clock, mic, 400, 0, 1);
    await until(clock, () => session.userState === 'speaking', 2000);
  });
});

describe('RoomIO: the pre-connect audio buffer', () => {
  const attributes = { trackId: 'TR_alice', sampleRate: String(RATE), channels: '1' };

  /** What a native frontend recorded before the agent joined: `voicedMs` of speech, then a little silence. */
  function recording(voicedMs: number, silentMs: number): Uint8Array[] {
    const chunks: Uint8Array[] = [];
    for (let t = 0; t < voicedMs + silentMs; t += 20) {
      chunks.push(frameToBytes(t < voicedMs ? voicedFrame(0, 20, RATE) : silentFrame(20, RATE)));
    }
    return chunks;
  }

  it('answers words spoken before the agent joined: the buffer plays ahead of the live microphone', async () => {
    const events: PreConnectAudioEvent[] = [];
    const { clock, room, io } = setup({ onPreConnectAudio: (e) => events.push(e) });
    room.join(participant('alice'));
    // The frontend sends its buffer the moment the agent is in the room, before the job's room I/O exists.
    const buffer = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    for (const chunk of recording(600, 100)) await buffer.push(chunk);
    buffer.end();
    io.start();
    const session = await startSession(clock, io);
    // The user has stopped talking by the time the microphone is subscribed: the live track is silent.
    const mic = room.publishMicrophone('alice', 'TR_alice', { preConnectBuffer: true });
    await speak(clock, mic, 0, 1000);
    await until(clock, () =>
      session.history.items.some((i) => i.type === 'message' && i.role === 'assistant'),
    );
    const users = session.history.items.filter((i) => i.type === 'message' && i.role === 'user');
    expect(users.map((u) => (u.type === 'message' ? u.content : undefined))).toEqual([['hello there']]);
    expect(io.audioInput.stats.preConnectFrames).toBe(35);
    expect(events).toEqual([
      {
        type: 'used',
        trackSid: 'TR_alice',
        participantIdentity: 'alice',
        durationMs: 700,
        droppedMs: 0,
        partial: false,
      },
    ]);
  });

  it('leaves the buffer alone when disabled, and the session hears only the live track', async () => {
    const { clock, room, io } = setup({ preConnectAudio: false });
    room.join(participant('alice'));
    const buffer = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, { attributes });
    for (const chunk of recording(600, 100)) await buffer.push(chunk);
    buffer.end();
    io.start();
    const session = await startSession(clock, io);
    const mic = room.publishMicrophone('alice', 'TR_alice', { preConnectBuffer: true });
    await speak(clock, mic, 0, 1000);
    expect(io.audioInput.stats.preConnectFrames).toBe(0);
    expect(session.userState).toBe('listening');
    expect(session.history.items.filter((i) => i.type === 'message')).toEqual([]);
    // The room's hold lets it go.
    await clock.sleep(10_000);
    expect(buffer.cancelled).toBe(true);
  });

  it('hears words recorded by the web SDK (Opus in WebM), sent after the track was linked', async () => {
    const events: PreConnectAudioEvent[] = [];
    const { clock, room, io } = setup({ onPreConnectAudio: (e) => events.push(e) });
    room.join(participant('alice'));
    io.start();
    // What the recognizer is fed, in order: voiced (the decoded recording) or silent (the live track).
    const heard: boolean[] = [];
    const session = new AgentSession({
      clock,
      vad: new ScriptedVAD({ minSilenceDurationMs: 300 }),
      stt: new FakeSTT({ clock, utterances: [], onFrame: (code) => heard.push(code !== undefined) }),
      llm: new FakeLLM({ clock, replies: [] }),
      tts: new FakeTTS({ clock, sampleRate: RATE, msPerChar: 20 }),
    });
    sessions.push(session);
    const userStates: string[] = [];
    session.on('user_state_changed', (e) => userStates.push(e.newState));
    io.onSessionConnected(session);
    await session.start({ agent: new Agent({ instructions: 'Be brief.' }), ...io.io() });
    const mic = room.publishMicrophone('alice', 'TR_alice', { preConnectBuffer: true });
    const live = speak(clock, mic, 0, 1500);
    await clock.sleep(200);
    const buffer = room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      mimeType: 'audio/webm;codecs=opus',
      attributes: { ...attributes, sampleRate: '48000' },
    });
    await buffer.push(webSdkRecording());
    buffer.end();
    await live;
    await clock.sleep(500);
    expect(events).toMatchObject([{ type: 'used', trackSid: 'TR_alice', partial: false }]);
    // ~600 ms of the recording (20 ms frames) came first, then the live track's silence.
    const voiced = heard.findIndex((v) => !v);
    expect(voiced).toBeGreaterThanOrEqual(28);
    expect(heard.slice(0, voiced).every(Boolean)).toBe(true);
    expect(heard.slice(voiced + 1).some(Boolean)).toBe(false);
    expect(userStates.slice(0, 2)).toEqual(['speaking', 'listening']);
  });

  it("goes on with the live track when the buffer is Safari's AAC", async () => {
    const events: PreConnectAudioEvent[] = [];
    const { clock, room, io } = setup({ onPreConnectAudio: (e) => events.push(e) });
    room.join(participant('alice'));
    room.sendByteStream('alice', PRE_CONNECT_AUDIO_TOPIC, {
      mimeType: 'video/mp4',
      attributes: { ...attributes, sampleRate: '48000' },
    });
    io.start();
    const session = await startSession(clock, io);
    const mic = room.publishMicrophone('alice', 'TR_alice', { preConnectBuffer: true });
    await speak(clock, mic, 600, 600);
    await until(clock, () =>
      session.history.items.some((i) => i.type === 'message' && i.role === 'assistant'),
    );
    expect(events).toMatchObject([{ type: 'refused', error: { reason: 'unsupported_format' } }]);
  });
});

describe('RoomIO: DTMF as session events', () => {
  it("delivers the linked caller's keys to the session's dtmf_received, stamped on its clock", async () => {
    const hook: string[] = [];
    const { clock, room, io } = setup({ onDtmf: (e) => hook.push(e.digit) });
    room.join(participant('+15551234', 'sip'));
    room.join(participant('someone-else'));
    io.start();
    const session = await startSession(clock, io);
    const got: DtmfReceivedEvent[] = [];
    session.on('dtmf_received', (e) => got.push(e));
    await clock.sleep(250);
    const at = clock.now();
    room.dtmf('+15551234', '4');
    room.dtmf('someone-else', '9');
    room.dtmf('+15551234', '#');
    // The digit counts: a code that disagrees is corrected, a missing digit comes from the code, and an
    // event with neither is logged and dropped (the call goes on).
    room.dtmf('+15551234', '*', 0);
    room.dtmf('+15551234', '', 12);
    room.dtmf('+15551234', '??', 99);
    expect(got).toEqual([
      { digit: '4', code: 4, participantIdentity: '+15551234', atMs: at },
      { digit: '#', code: 11, participantIdentity: '+15551234', atMs: at },
      { digit: '*', code: 10, participantIdentity: '+15551234', atMs: at },
      { digit: 'A', code: 12, participantIdentity: '+15551234', atMs: at },
    ]);
    expect(hook).toEqual(['4', '#', '*', '', '??']);
  });
});
