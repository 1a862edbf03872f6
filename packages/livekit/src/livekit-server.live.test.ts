// End to end against a real LiveKit server (`pnpm --filter @voxwire/livekit test:live`): runs when LIVEKIT_URL, LIVEKIT_API_KEY and
// LIVEKIT_API_SECRET are set (e.g. `livekit-server --dev`: ws://localhost:7880, devkey, secret).
// No LiveKit server could be installed where this package was written, so this test has not run
// there; see the README for what was verified against fakes only.
import { Agent, AgentSession, defineAgent, realClock, silentLogger } from '@voxwire/agents';
import { FakeLLM, FakeTTS } from '@voxwire/testing';
import { AccessToken, AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import type { PreConnectAudioEvent } from './room/pre-connect-audio.js';
import { PRE_CONNECT_AUDIO_TOPIC } from './room/pre-connect-format.js';
import { disposeRtcNode, loadRtcNode } from './room/rtc-room.js';
import { AgentWorker } from './worker/agent-worker.js';

const url = process.env.LIVEKIT_URL;
const apiKey = process.env.LIVEKIT_API_KEY;
const apiSecret = process.env.LIVEKIT_API_SECRET;
const configured = Boolean(url && apiKey && apiSecret);
if (!configured) {
  console.info(
    '[@voxwire/livekit] e2e skipped: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET ' +
      '(e.g. `livekit-server --dev` with ws://localhost:7880, devkey, secret) to run it.',
  );
}

afterAll(async () => {
  if (configured) await disposeRtcNode();
});

describe.skipIf(!configured)('against a real LiveKit server', () => {
  it('is dispatched explicitly, joins the room, speaks, and publishes its state and transcript', async () => {
    const rtc = await loadRtcNode();
    const suffix = Math.random().toString(36).slice(2, 8);
    const agentName = `voxwire-e2e-${suffix}`;
    const roomName = `voxwire-e2e-${suffix}`;
    const clock = realClock();
    const worker = new AgentWorker({
      url: url!,
      apiKey: apiKey!,
      apiSecret: apiSecret!,
      agentName,
      logger: silentLogger,
      agent: defineAgent({
        async entry(ctx) {
          const session = new AgentSession({
            clock,
            llm: new FakeLLM({ clock, replies: [] }),
            tts: new FakeTTS({ clock, sampleRate: 24_000 }),
          });
          await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
          session.say('hello from voxwire');
        },
      }),
    });
    const running = worker.start();
    const http = url!.replace(/^ws/u, 'http');
    const rooms = new RoomServiceClient(http, apiKey, apiSecret);
    await rooms.createRoom({ name: roomName, emptyTimeout: 60 });
    const token = new AccessToken(apiKey, apiSecret, { identity: 'e2e-user' });
    token.addGrant({ roomJoin: true, room: roomName, canPublish: true, canSubscribe: true });
    const user = new rtc.Room();
    const transcripts: string[] = [];
    user.registerTextStreamHandler('lk.transcription', (reader) => {
      void reader.readAll().then((text) => transcripts.push(text));
    });
    let agentAudio = false;
    user.on(rtc.RoomEvent.TrackSubscribed, (track) => {
      if (track.kind === rtc.TrackKind.KIND_AUDIO) agentAudio = true;
    });
    await user.connect(url!, await token.toJwt(), { autoSubscribe: true, dynacast: false });
    try {
      await new Promise((r) => setTimeout(r, 1000));
      await new AgentDispatchClient(http, apiKey, apiSecret).createDispatch(roomName, agentName);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && !transcripts.some((t) => t.includes('hello from voxwire'))) {
        await new Promise((r) => setTimeout(r, 200));
      }
      const agent = [...user.remoteParticipants.values()].find(
        (p) => p.attributes?.['lk.agent.name'] === agentName,
      );
      expect(agent).toBeDefined();
      expect(agentAudio).toBe(true);
      expect(transcripts.join(' ')).toContain('hello from voxwire');
      expect(agent!.attributes?.['lk.agent.state']).toBeDefined();
    } finally {
      await user.disconnect();
      await worker.drain(5000);
      await running.catch(() => {});
      await rooms.deleteRoom(roomName).catch(() => {});
    }
  }, 60_000);

  it('plays a pre-connect buffer ahead of the live track, and delivers DTMF as session events', async () => {
    const rtc = await loadRtcNode();
    const suffix = Math.random().toString(36).slice(2, 8);
    const agentName = `voxwire-e2e-${suffix}`;
    const roomName = `voxwire-e2e-${suffix}`;
    const clock = realClock();
    const preConnect: PreConnectAudioEvent[] = [];
    const digits: string[] = [];
    const worker = new AgentWorker({
      url: url!,
      apiKey: apiKey!,
      apiSecret: apiSecret!,
      agentName,
      logger: silentLogger,
      roomIO: { onPreConnectAudio: (event) => preConnect.push(event) },
      agent: defineAgent({
        async entry(ctx) {
          const session = new AgentSession({
            clock,
            llm: new FakeLLM({ clock, replies: [] }),
            tts: new FakeTTS({ clock, sampleRate: 24_000 }),
          });
          session.on('dtmf_received', (event) => digits.push(event.digit));
          await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
        },
      }),
    });
    const running = worker.start();
    const http = url!.replace(/^ws/u, 'http');
    const rooms = new RoomServiceClient(http, apiKey, apiSecret);
    await rooms.createRoom({ name: roomName, emptyTimeout: 60 });
    const token = new AccessToken(apiKey, apiSecret, { identity: 'e2e-user' });
    token.addGrant({
      roomJoin: true,
      room: roomName,
      canPublish: true,
      canSubscribe: true,
      canPublishData: true,
    });
    const user = new rtc.Room();
    await user.connect(url!, await token.toJwt(), { autoSubscribe: true, dynacast: false });
    try {
      await new AgentDispatchClient(http, apiKey, apiSecret).createDispatch(roomName, agentName);
      const agentDeadline = Date.now() + 20_000;
      let agent: string | undefined;
      while (Date.now() < agentDeadline && !agent) {
        agent = [...user.remoteParticipants.values()].find(
          (p) => p.attributes?.['lk.agent.name'] === agentName,
        )?.identity;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(agent).toBeDefined();
      // As a native SDK does: a microphone announcing its buffer, then the buffer as raw PCM.
      const source = new rtc.AudioSource(24_000, 1);
      const track = rtc.LocalAudioTrack.createAudioTrack('microphone', source);
      const publication = await user.localParticipant!.publishTrack(
        track,
        new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE, preconnectBuffer: true }),
      );
      const writer = await user.localParticipant!.streamBytes({
        topic: PRE_CONNECT_AUDIO_TOPIC,
        destinationIdentities: [agent!],
        attributes: { trackId: publication.sid!, sampleRate: '24000', channels: '1' },
      });
      await writer.write(new Uint8Array(24_000)); // 500 ms of 24 kHz mono silence
      await writer.close();
      await user.localParticipant!.publishDtmf(4, '4');
      await user.localParticipant!.publishDtmf(11, '#');
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (preConnect.length === 0 || digits.length < 2)) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(preConnect).toMatchObject([{ type: 'used', trackSid: publication.sid, durationMs: 500 }]);
      expect(digits).toEqual(['4', '#']);
    } finally {
      await user.disconnect();
      await worker.drain(5000);
      await running.catch(() => {});
      await rooms.deleteRoom(roomName).catch(() => {});
    }
  }, 60_000);
});
