// The hung providers of the fakes: they go quiet without an error, until aborted or closed.
import { type AudioFrame, VirtualClock } from '@voxwire/agents';
import { describe, expect, it } from 'vitest';
import { agentFrame, voicedFrame } from '../audio.js';
import { FakeAudioOutput } from './audio-io.js';
import { FakeLLM } from './llm.js';
import { FakeSTT } from './stt.js';
import { FakeTTS } from './tts.js';

const message = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };

async function settle(clock: VirtualClock, ms: number): Promise<void> {
  await clock.sleep(ms);
}

describe('stalls', () => {
  it('FakeLLM: stallAfterWords streams that many words, then nothing until aborted', async () => {
    const clock = new VirtualClock();
    const events: string[] = [];
    const llm = new FakeLLM({
      clock,
      replies: [{ text: 'one two three four', ttftMs: 100, tokenMs: 10, stallAfterWords: 2 }],
      onEvent: (e) => events.push(e.type),
    });
    const controller = new AbortController();
    const parts: string[] = [];
    const done = (async () => {
      for await (const part of llm.chat({ messages: [message], signal: controller.signal }))
        if (part.type === 'text_delta') parts.push(part.text);
    })();
    await settle(clock, 60_000);
    expect(parts).toEqual(['one ', 'two ']);
    expect(events.filter((e) => e !== 'request')).toEqual(['stall']);
    controller.abort();
    await done;
  });

  it('FakeLLM.stall(): a request in flight stops at its next chunk; new ones send nothing in the window', async () => {
    const clock = new VirtualClock();
    const llm = new FakeLLM({ clock, replies: [{ text: 'a b c d e', ttftMs: 100, tokenMs: 100 }] });
    const read = (signal: AbortSignal, into: string[]) =>
      (async () => {
        for await (const part of llm.chat({ messages: [message], signal }))
          if (part.type === 'text_delta') into.push(part.text.trim());
      })();
    const first = new AbortController();
    const firstParts: string[] = [];
    const running = read(first.signal, firstParts);
    await settle(clock, 250);
    llm.stall(1000);
    const second = new AbortController();
    const secondParts: string[] = [];
    const quiet = read(second.signal, secondParts);
    await settle(clock, 10_000);
    expect(firstParts).toEqual(['a', 'b']);
    expect(secondParts).toEqual([]);
    first.abort();
    second.abort();
    await Promise.all([running, quiet]);
    const later: string[] = [];
    await Promise.all([read(new AbortController().signal, later), settle(clock, 2000)]);
    expect(later).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('FakeTTS.stall(): streams go quiet, and end quietly when closed', async () => {
    const clock = new VirtualClock();
    const events: string[] = [];
    const tts = new FakeTTS({ clock, ttfbMs: 50, msPerChar: 50, onEvent: (e) => events.push(e.type) });
    const stream = tts.stream();
    stream.pushText('a long text to speak');
    stream.endInput();
    const frames: number[] = [];
    const reading = (async () => {
      for await (const chunk of stream) frames.push(chunk.frame.samplesPerChannel);
    })();
    await settle(clock, 100);
    const before = frames.length;
    expect(before).toBeGreaterThan(0);
    tts.stall(500);
    await settle(clock, 30_000);
    expect(frames.length - before).toBeLessThanOrEqual(10);
    expect(events).toContain('stall');
    await stream.close();
    await reading;
  });

  it('FakeSTT.stall(): a stream takes audio but reports nothing more', async () => {
    const clock = new VirtualClock();
    let stalls = 0;
    const stt = new FakeSTT({
      clock,
      utterances: [{ transcript: 'hello there', durationMs: 400 }],
      interimIntervalMs: 100,
      onStall: () => stalls++,
    });
    const stream = stt.stream({ sampleRate: 16_000 });
    const events: string[] = [];
    const reading = (async () => {
      for await (const e of stream) events.push(e.type);
    })();
    stt.stall(100);
    for (let i = 0; i < 20; i++) stream.pushFrame(voicedFrame(0, 20));
    await settle(clock, 5000);
    expect(stt.framesPushed).toBe(20);
    expect(events).toEqual([]);
    expect(stalls).toBe(1);
    stream.endInput();
    await reading;
  });

  it('FakeAudioOutput.stallCaptures(): captureFrame never returns in the window, and works after it', async () => {
    const clock = new VirtualClock();
    const records: string[] = [];
    const output = new FakeAudioOutput({ clock, onRecord: (r) => records.push(r.type) });
    output.stallCaptures(100);
    let returned = false;
    void output.captureFrame(agentFrame(20) as AudioFrame).then(() => {
      returned = true;
    });
    await settle(clock, 5000);
    expect(returned).toBe(false);
    expect(records).toEqual(['output_capture_stalled']);
    // Cut, the stuck segment still ends; the next one plays.
    output.clearBuffer();
    await expect(output.waitForPlayout()).resolves.toEqual({ playbackPositionMs: 0, interrupted: true });
    await output.captureFrame(agentFrame(20) as AudioFrame);
    output.flush();
    await Promise.all([output.waitForPlayout(), settle(clock, 100)]);
    expect(records.slice(-2)).toEqual(['output_audio_end', 'output_playback_finished']);
  });
});
