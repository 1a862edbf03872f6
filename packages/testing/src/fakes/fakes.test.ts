import { APIConnectionError, type AudioFrame, ChatContext, VirtualClock } from '@voxwire/agents';
import { type LLMMessage, toLLMMessages } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';
import { agentFrame, decodeSegment, silentFrame, voicedFrame } from '../audio.js';
import { FakeAudioInput, FakeAudioOutput, type OutputRecord } from './audio-io.js';
import { FakeLLM } from './llm.js';
import { FakeSTT } from './stt.js';
import { FakeTTS } from './tts.js';
import { ScriptedVAD } from './vad.js';

async function collect<T>(
  iterable: AsyncIterable<T>,
  clock: VirtualClock,
): Promise<Array<T & { at: number }>> {
  const out: Array<T & { at: number }> = [];
  for await (const item of iterable) out.push({ ...item, at: clock.now() });
  return out;
}

describe('audio codes', () => {
  it('encode the segment in voiced frames and nothing in silence', () => {
    expect(decodeSegment(voicedFrame(0, 20))).toBe(0);
    expect(decodeSegment(voicedFrame(41, 20))).toBe(41);
    expect(decodeSegment(silentFrame(20))).toBeUndefined();
    expect(voicedFrame(3, 20).samplesPerChannel).toBe(320);
  });
});

describe('ScriptedVAD', () => {
  it('starts after the min speech and ends after the min silence of audio it hears', async () => {
    const vad = new ScriptedVAD({ minSpeechDurationMs: 100, minSilenceDurationMs: 300 });
    const stream = vad.stream();
    const frames = [
      ...Array(10).fill(silentFrame(20)),
      ...Array(25).fill(voicedFrame(0, 20)),
      ...Array(20).fill(silentFrame(20)),
    ];
    for (const f of frames as AudioFrame[]) stream.pushFrame(f);
    stream.endInput();
    const events = [];
    for await (const e of stream) if (e.type !== 'inference_done') events.push(e);
    expect(
      events.map((e) => [
        e.type,
        e.timestampMs,
        e.type === 'start_of_speech' ? e.speechDurationMs : e.silenceDurationMs,
        e.frames.reduce((ms, f) => ms + f.durationMs, 0),
      ]),
    ).toEqual([
      // Speech starts at 200 ms, confirmed 100 ms into the voiced run (200 ms of prefix padding before it) ...
      ['start_of_speech', 200, 100, 300],
      // ... and ends at 700 ms, confirmed after 300 ms of silence: the utterance holds padding, 500 ms of
      // voice and the silence. Positions are where speech began and ended, as the VAD spec says.
      ['end_of_speech', 700, 300, 1000],
    ]);
    expect(vad.framesPushed).toBe(55);
  });

  it('reports inference every window, and fails its streams on demand', async () => {
    const vad = new ScriptedVAD({ windowMs: 20 });
    const stream = vad.stream();
    stream.pushFrame(voicedFrame(0, 40));
    vad.fail(new APIConnectionError('gone'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of stream) seen.push(e.type);
      })(),
    ).rejects.toThrow('gone');
    expect(seen).toEqual(['inference_done', 'inference_done']);
  });
});

describe('FakeSTT', () => {
  it('transcribes what it heard, after the configured delays', async () => {
    const clock = new VirtualClock();
    const stt = new FakeSTT({
      clock,
      utterances: [{ transcript: 'one two three four', durationMs: 800 }],
      finalDelayMs: 300,
      interimIntervalMs: 400,
    });
    const stream = stt.stream({ sampleRate: 16_000 });
    const events = collect(stream, clock);
    for (let i = 0; i < 70; i++) {
      await clock.sleep(20);
      stream.pushFrame(i >= 10 && i < 50 ? voicedFrame(0, 20) : silentFrame(20));
    }
    stream.endInput();
    const got = (await events).map((e) => [e.type, e.at, 'alternatives' in e ? e.alternatives[0]!.text : '']);
    expect(got).toEqual([
      ['interim_transcript', 750, 'one two'],
      ['interim_transcript', 1150, 'one two three four'],
      ['final_transcript', 1300, 'one two three four'],
    ]);
  });

  it('hears nothing in silence, and part of the words when fed part of the audio', async () => {
    const clock = new VirtualClock();
    const stt = new FakeSTT({
      clock,
      utterances: [{ transcript: 'a b c d e f g h i j', durationMs: 1000 }],
      interimIntervalMs: 0,
    });
    const stream = stt.stream({ sampleRate: 16_000 });
    const events = collect(stream, clock);
    for (let i = 0; i < 80; i++) {
      await clock.sleep(20);
      // The session discards the second half (an uninterruptible speech started): the STT gets silence.
      stream.pushFrame(i < 25 ? voicedFrame(0, 20) : silentFrame(20));
    }
    stream.endInput();
    const finals = (await events).filter((e) => e.type === 'final_transcript');
    expect(finals.map((e) => ('alternatives' in e ? e.alternatives[0]!.text : ''))).toEqual(['a b c d e']);
  });

  it('drops its connection on disconnect', async () => {
    const clock = new VirtualClock();
    const stt = new FakeSTT({ clock, utterances: [] });
    const stream = stt.stream({ sampleRate: 16_000 });
    stt.disconnect(500);
    await expect(collect(stream, clock)).rejects.toThrow(APIConnectionError);
    await expect(collect(stt.stream({ sampleRate: 16_000 }), clock)).rejects.toThrow('STT unavailable');
  });
});

describe('FakeLLM', () => {
  const ctx = (text: string): LLMMessage[] => {
    const c = new ChatContext();
    c.addMessage({ role: 'user', content: text });
    return toLLMMessages(c);
  };

  it('streams the matching reply in time: first token, then one word per tokenMs, then tool calls', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM({
      clock,
      replies: [
        {
          match: { user: 'hi' },
          ttftMs: 200,
          tokenMs: 50,
          text: 'Hello there friend',
          toolCalls: [{ name: 'x', args: { a: 1 } }],
        },
      ],
    });
    const parts = await collect(llm.chat({ messages: ctx('hi!') }), clock);
    expect(parts.map((p) => [p.type, p.at])).toEqual([
      ['text_delta', 200],
      ['text_delta', 250],
      ['text_delta', 300],
      ['tool_call', 300],
      ['usage', 300],
      ['finish', 300],
    ]);
    expect(parts[3]).toMatchObject({ name: 'x', arguments: '{"a":1}', callId: 'call_1' });
    const fallback = await collect(llm.chat({ messages: ctx('other') }), clock);
    expect(fallback[0]).toMatchObject({ type: 'text_delta', text: 'Okay.' });
  });

  it('fails with typed errors: scripted, outage, and ends quietly when aborted', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM({
      clock,
      replies: [
        { match: { user: 'boom' }, text: 'a b c', error: { afterMs: 350, kind: 'status', statusCode: 503 } },
        { text: 'slow words here', tokenMs: 500 },
      ],
    });
    await expect(collect(llm.chat({ messages: ctx('boom') }), clock)).rejects.toMatchObject({
      statusCode: 503,
    });
    const controller = new AbortController();
    clock.setTimer(400, () => controller.abort());
    const parts = await collect(llm.chat({ messages: ctx('x'), signal: controller.signal }), clock);
    expect(parts.map((p) => p.type)).toEqual(['text_delta']);
    const during = collect(llm.chat({ messages: ctx('x') }), clock);
    clock.setTimer(100, () => llm.outage(1000));
    await expect(during).rejects.toThrow('LLM connection dropped');
    await expect(collect(llm.chat({ messages: ctx('x') }), clock)).rejects.toThrow('LLM unavailable');
  });
});

describe('FakeTTS', () => {
  it('produces audio in proportion to the text after the time to first byte', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, msPerChar: 50, ttfbMs: 150, frameMs: 20, realtimeFactor: 0.5 });
    const chunks = await collect(tts.synthesize('0123456789'), clock);
    expect(chunks.reduce((t, c) => t + c.frame.durationMs, 0)).toBe(500);
    expect(chunks[0]!.at).toBe(150);
    expect(chunks.at(-1)!.at).toBeLessThan(500);
  });

  it('fails on scripted texts and during outages', async () => {
    const clock = new VirtualClock();
    const tts = new FakeTTS({ clock, failOn: ['forbidden'] });
    await expect(collect(tts.synthesize('a forbidden word'), clock)).rejects.toThrow(/failed to synthesize/);
    tts.outage(1000);
    await expect(collect(tts.synthesize('hello'), clock)).rejects.toThrow('TTS unavailable');
  });
});

describe('FakeAudioInput and FakeAudioOutput', () => {
  it('the microphone delivers coded frames on the clock', async () => {
    const clock = new VirtualClock();
    const input = new FakeAudioInput({ clock, segments: [{ startMs: 40, endMs: 80 }], endAtMs: 120 });
    const frames = await collect(
      (async function* () {
        for await (const f of input) yield { code: decodeSegment(f) };
      })(),
      clock,
    );
    expect(frames).toEqual([
      { code: undefined, at: 20 },
      { code: undefined, at: 40 },
      { code: 0, at: 60 },
      { code: 0, at: 80 },
      { code: undefined, at: 100 },
      { code: undefined, at: 120 },
    ]);
  });

  it('pushes the same frames at the same times as it iterates, bad frames first, and ends the same', async () => {
    const script = async (mode: 'iterate' | 'push') => {
      const clock = new VirtualClock();
      const codes: Array<number | undefined> = [];
      const input = new FakeAudioInput({
        clock,
        segments: [{ startMs: 20, endMs: 60 }],
        endAtMs: 100,
        onFrame: (code) => codes.push(code),
      });
      const seen: Array<{ at: number; code: number | undefined; rate: number }> = [];
      const hear = (f: AudioFrame) => {
        seen.push({
          at: clock.now(),
          code: f.sampleRate > 0 ? decodeSegment(f) : undefined,
          rate: f.sampleRate,
        });
        if (seen.length === 2) input.injectBadFrame();
      };
      let ended = false;
      if (mode === 'iterate') {
        void (async () => {
          for await (const f of input) hear(f);
          ended = true;
        })();
      } else {
        input.subscribeFrames({ frame: hear, end: () => (ended = true), fail: () => {} });
      }
      await clock.whenIdle();
      return { seen, ended, at: clock.now(), codes, delivered: input.framesDelivered };
    };
    const iterated = await script('iterate');
    expect(await script('push')).toEqual(iterated);
    expect(iterated.seen.map((f) => [f.at, f.rate])).toEqual([
      [20, 16_000],
      [40, 16_000],
      [60, 0],
      [60, 16_000],
      [80, 16_000],
      [100, 16_000],
    ]);
    expect(iterated.ended).toBe(true);
  });

  it('stops pushing when unsubscribed, and when the microphone is stopped', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const input = new FakeAudioInput({ clock, segments: [] });
    const at: number[] = [];
    let ended = 0;
    const unsubscribe = input.subscribeFrames({
      frame: () => at.push(clock.now()),
      end: () => ended++,
      fail: () => {},
    });
    await clock.advance(45);
    unsubscribe();
    await clock.advance(100);
    expect(at).toEqual([20, 40]);
    expect(clock.pendingTimers).toBe(0);

    const second = new FakeAudioInput({ clock, segments: [] });
    second.subscribeFrames({ frame: () => at.push(clock.now()), end: () => ended++, fail: () => {} });
    await clock.advance(25);
    second.stop();
    await clock.advance(100);
    expect(at).toEqual([20, 40, 165]);
    expect(ended).toBe(1);
  });

  it('plays at real speed with back-pressure, pauses, and reports late or never', async () => {
    for (const [options, expected] of [
      [{}, 200],
      [{ finishLagMs: 200 }, 400],
    ] as const) {
      const clock = new VirtualClock();
      const records: OutputRecord['type'][] = [];
      const out = new FakeAudioOutput({
        clock,
        bufferMs: 100,
        ...options,
        onRecord: (r) => records.push(r.type),
      });
      for (let i = 0; i < 10; i++) await out.captureFrame(agentFrame(20));
      expect(clock.now()).toBe(100);
      out.pause();
      await clock.sleep(1000);
      out.resume();
      out.flush();
      const finished = await out.waitForPlayout();
      expect(finished).toEqual({ playbackPositionMs: 200, interrupted: false });
      expect(clock.now()).toBe(1000 + expected);
      expect(records).toContain('output_paused');
      expect(out.frames).toHaveLength(10);
    }
    const clock = new VirtualClock();
    const silent = new FakeAudioOutput({ clock, neverFinish: true });
    await silent.captureFrame(agentFrame(20));
    silent.flush();
    const outcome = await Promise.race([
      silent.waitForPlayout().then(() => 'reported'),
      clock.sleep(5000).then(() => 'silent'),
    ]);
    expect(outcome).toBe('silent');
  });

  it('clearBuffer stops the audio where it is', async () => {
    const clock = new VirtualClock();
    const out = new FakeAudioOutput({ clock, bufferMs: 1000 });
    for (let i = 0; i < 10; i++) await out.captureFrame(agentFrame(20));
    await clock.sleep(70);
    out.clearBuffer();
    expect(await out.waitForPlayout()).toEqual({ playbackPositionMs: 70, interrupted: true });
  });
});
