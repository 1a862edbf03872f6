import { describe, expect, it } from 'vitest';
import { AudioFrame } from '../../audio/audio-frame.js';
import { peakAmplitude } from '../../audio/frame-utils.js';
import type { PlaybackEvent } from '../../providers/audio-io.js';
import type { Clock } from '../../time/clock.js';
import { VirtualClock } from '../../time/virtual-clock.js';
import { FakeLLM, FakeTTS } from '../../test-support/session-harness.js';
import { Agent } from '../agent/agent.js';
import { AgentSession } from '../session/agent-session.js';
import type { AgentState } from '../session/session-events.js';
import { tool } from '../tools/tool.js';
import { BackgroundAudio } from './background-audio.js';
import { NullAudioOutput } from './null-audio-output.js';

const RATE = 16_000;

interface Captured {
  atMs: number;
  frame: AudioFrame;
  /** The sink's segment number when it arrived. */
  segment: number;
}

/** A sink at 16 kHz that plays on the clock and records every frame with the time it arrived. */
class RecordingSink extends NullAudioOutput {
  override readonly sampleRate = RATE;
  readonly frames: Captured[] = [];
  readonly events: PlaybackEvent['type'][] = [];
  clears = 0;
  private segment = 0;
  private open = false;

  constructor(private readonly sinkClock: Clock) {
    super(sinkClock);
    this.onPlayback((e) => this.events.push(e.type));
  }

  protected override async onCaptureFrame(frame: AudioFrame): Promise<void> {
    if (!this.open) {
      this.open = true;
      this.segment++;
    }
    this.frames.push({ atMs: this.sinkClock.now(), frame, segment: this.segment });
    return super.onCaptureFrame(frame);
  }

  protected override onFlush(): void {
    this.open = false;
    super.onFlush();
  }

  protected override onClearBuffer(): void {
    this.open = false;
    this.clears++;
    super.onClearBuffer();
  }
}

function setup(options: ConstructorParameters<typeof BackgroundAudio>[1]) {
  const clock = new VirtualClock({ autoAdvance: false });
  const session = new AgentSession({ clock });
  const sink = new RecordingSink(clock);
  const background = new BackgroundAudio(session, options);
  const output = background.wrap(sink);
  const state = (newState: AgentState) =>
    session.emit('agent_state_changed', { oldState: 'listening', newState, atMs: clock.now() });
  return { clock, session, sink, background, output, state };
}

/** A speech frame: a constant level, so whatever the background adds shows as the difference. */
function speechFrame(ms = 20, level = 1000): AudioFrame {
  const samples = (RATE * ms) / 1000;
  return new AudioFrame(new Int16Array(samples).fill(level), RATE, 1, samples);
}

const loud = (c: Captured) => peakAmplitude(c.frame) > 0;

describe('BackgroundAudio', () => {
  it('is off unless a sound is configured: no timer, and speech passes through untouched', async () => {
    const { clock, sink, output, state } = setup({});
    expect(clock.pendingTimers).toBe(0);
    state('thinking');
    await clock.advance(500);
    expect(sink.frames).toEqual([]);
    const frame = speechFrame();
    await output.captureFrame(frame);
    expect(sink.frames[0]!.frame).toBe(frame);
  });

  it('plays the thinking sound while the agent thinks and is silent otherwise', async () => {
    const { clock, sink, state, background } = setup({ thinking: { volume: 1 }, thinkingFadeOutMs: 100 });
    state('listening');
    await clock.advance(400);
    expect(sink.frames).toEqual([]);

    state('thinking');
    await clock.advance(1000);
    const during = sink.frames.filter((c) => c.atMs > 400);
    // One 20 ms frame per tick of the clock, at 16 kHz (the sink's rate), some of them ticks.
    expect(during.length).toBeGreaterThanOrEqual(49);
    expect(during.every((c) => c.frame.samplesPerChannel === 320 && c.frame.sampleRate === RATE)).toBe(true);
    expect(during.filter(loud).length).toBeGreaterThan(5);
    expect(sink.events).toEqual(['playback_started']);

    state('listening');
    await clock.advance(200);
    const count = sink.frames.length;
    await clock.advance(1000);
    // Faded out over 100 ms, then nothing more is sent and the background segment is cleared.
    expect(sink.frames.length).toBe(count);
    expect(sink.clears).toBe(1);
    expect(background.stats.gapFramesSent).toBe(count);
  });

  it('leaves no tail of the thinking sound after a reply shorter than its fade-out', async () => {
    const { clock, sink, output, state } = setup({ thinking: { volume: 1 }, thinkingFadeOutMs: 300 });
    state('thinking');
    await clock.advance(400);
    for (let i = 0; i < 5; i++) await output.captureFrame(speechFrame(20, 0));
    const speechSegment = sink.frames.at(-1)!.segment;
    expect(speechSegment).toBe(2);
    output.flush();
    const playout = output.waitForPlayout();
    await clock.advance(100);
    await playout;
    state('listening');
    await clock.advance(1000);
    expect(sink.frames.at(-1)!.segment).toBe(speechSegment);
    // Thinking again later starts the sound afresh.
    state('thinking');
    await clock.advance(400);
    expect(sink.frames.filter((c) => c.segment > speechSegment).filter(loud).length).toBeGreaterThan(0);
  });

  it('waits thinkingDelayMs before the thinking sound, so a quick reply stays quiet', async () => {
    const { clock, sink, state } = setup({ thinking: true, thinkingDelayMs: 300 });
    state('thinking');
    await clock.advance(250);
    state('listening');
    await clock.advance(1000);
    expect(sink.frames).toEqual([]);
    state('thinking');
    await clock.advance(600);
    expect(sink.frames.length).toBeGreaterThan(10);
    expect(sink.frames[0]!.atMs).toBeGreaterThanOrEqual(1250 + 300);
  });

  it('applies each volume, and setVolume() changes it from the next frame', async () => {
    const run = async (volume: number) => {
      const { clock, sink, background } = setup({ ambient: { volume }, ambientFadeInMs: 0 });
      await clock.advance(400);
      return { samples: sink.frames.flatMap((c) => Array.from(c.frame.data)), background, clock, sink };
    };
    const quiet = await run(0.2);
    const full = await run(0.8);
    expect(quiet.samples.length).toBe(full.samples.length);
    const peakQuiet = Math.max(...quiet.samples.map(Math.abs));
    const peakFull = Math.max(...full.samples.map(Math.abs));
    expect(peakQuiet).toBeGreaterThan(50);
    expect(peakFull / peakQuiet).toBeCloseTo(4, 1);
    // Sample by sample, the same clip four times as loud (within rounding).
    for (let i = 0; i < full.samples.length; i += 97) {
      expect(Math.abs(full.samples[i]! - 4 * quiet.samples[i]!)).toBeLessThanOrEqual(3);
    }
    expect(quiet.background.volume('ambient')).toBe(0.2);
    quiet.background.setVolume('ambient', 0);
    const before = quiet.sink.frames.length;
    await quiet.clock.advance(200);
    // Volume 0 is silence: nothing more is sent at all.
    expect(quiet.sink.frames.length).toBe(before);
    expect(() => quiet.background.setVolume('ambient', 1.5)).toThrow(RangeError);
    expect(() => quiet.background.setVolume('thinking', 0.5)).toThrow(/no thinking sound/);
  });

  it('plays a clip of its own: exact at the sink rate, downmixed and resampled otherwise', async () => {
    // 10 ms up, 10 ms down at 16 kHz: a 50 Hz square.
    const square = new Int16Array(320).map((_, i) => (i < 160 ? 8000 : -8000));
    const own = setup({
      ambient: { clip: new AudioFrame(square, RATE, 1, 320), volume: 0.5 },
      ambientFadeInMs: 0,
    });
    await own.clock.advance(60);
    const played = own.sink.frames.flatMap((c) => Array.from(c.frame.data));
    expect(played).toEqual([...square, ...square, ...square].map((v) => v / 2));

    const stereo48k = new Int16Array(2 * 4800).map((_, i) => (i % 2 === 0 ? 6000 : 2000));
    const other = setup({
      ambient: { clip: new AudioFrame(stereo48k, 48_000, 2, 4800), volume: 1 },
      ambientFadeInMs: 0,
    });
    await other.clock.advance(200);
    const samples = other.sink.frames.flatMap((c) => Array.from(c.frame.data));
    expect(samples).toHaveLength(3200);
    // Mono at 16 kHz, the mean of the channels (away from the loop's edges, where the resampler rings).
    expect(samples.slice(200, 1400).every((v) => Math.abs(v - 4000) <= 40)).toBe(true);
  });

  it('checks its options', () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const session = new AgentSession({ clock });
    expect(() => new BackgroundAudio(session, { ambient: { volume: 2 } })).toThrow(RangeError);
    expect(() => new BackgroundAudio(session, { thinkingFadeOutMs: -1 })).toThrow(/thinkingFadeOutMs/);
    expect(() => new BackgroundAudio(session, { frameMs: 1000 })).toThrow(/frameMs/);
    expect(() => new BackgroundAudio(session, { sampleRate: 100 })).toThrow(/sampleRate/);
    expect(() => new BackgroundAudio(session, { ambient: { clip: AudioFrame.silence(RATE, 1, 0) } })).toThrow(
      /at least one sample/,
    );
    const background = new BackgroundAudio(session, { thinking: true });
    background.wrap(new NullAudioOutput(clock));
    expect(() => background.wrap(new NullAudioOutput(clock))).toThrow(/once/);
    background.close();
    expect(() => new BackgroundAudio(session).wrap(new NullAudioOutput(clock))).not.toThrow();
  });

  it('never delays speech: frames reach the sink at once, in order, with the ambient under them', async () => {
    const { clock, sink, output } = setup({ ambient: { volume: 0.5 }, ambientFadeInMs: 0 });
    const events: string[] = [];
    output.onPlayback((e) => events.push(e.type));
    await clock.advance(205);
    const backgroundFrames = sink.frames.length;
    expect(backgroundFrames).toBe(10);
    // A burst of speech, faster than real time, while the background segment is open.
    const speech = Array.from({ length: 25 }, () => speechFrame());
    for (const frame of speech) await output.captureFrame(frame);
    const arrived = sink.frames.slice(backgroundFrames);
    expect(arrived.map((c) => c.atMs)).toEqual(speech.map(() => 205));
    expect(arrived.map((c) => c.frame.samplesPerChannel)).toEqual(speech.map((f) => f.samplesPerChannel));
    // The background segment was cut for the speech, and speech has a segment of its own.
    expect(sink.clears).toBe(1);
    expect(new Set(arrived.map((c) => c.segment)).size).toBe(1);
    expect(arrived[0]!.segment).toBe(sink.frames[0]!.segment + 1);
    // Speech plus ambient: the difference is the ambient, small and not silent.
    const differences = arrived.flatMap((c) => Array.from(c.frame.data, (v) => v - 1000));
    expect(Math.max(...differences.map(Math.abs))).toBeGreaterThan(20);
    expect(Math.max(...differences.map(Math.abs))).toBeLessThan(2000);

    output.flush();
    const playout = output.waitForPlayout();
    // While the speech plays, the background sends nothing of its own.
    await clock.advance(499);
    expect(sink.frames.length).toBe(backgroundFrames + 25);
    await clock.advance(1);
    // The session hears the speech segment's own position, not the background's.
    expect(await playout).toEqual({ playbackPositionMs: 500, interrupted: false });
    expect(events).toEqual(['playback_started', 'playback_finished']);
    await clock.advance(100);
    expect(sink.frames.length).toBeGreaterThan(backgroundFrames + 25);
    expect(sink.frames.at(-1)!.segment).toBe(arrived[0]!.segment + 1);
  });

  it('passes interruptions through: a cleared speech finishes as interrupted where the sink stopped', async () => {
    const { clock, output } = setup({ ambient: true });
    await clock.advance(100);
    for (let i = 0; i < 50; i++) await output.captureFrame(speechFrame());
    output.flush();
    const playout = output.waitForPlayout();
    await clock.advance(300);
    output.clearBuffer();
    expect(await playout).toEqual({ playbackPositionMs: 300, interrupted: true });
    // An empty segment finishes at once.
    output.flush();
    expect(await output.waitForPlayout()).toEqual({ playbackPositionMs: 0, interrupted: false });
  });

  it('forwards pause and resume, sends no background into a paused sink, and a clear ends the pause', async () => {
    const { clock, sink, output } = setup({ ambient: true });
    await clock.advance(100);
    output.pause();
    const count = sink.frames.length;
    await clock.advance(200);
    expect(sink.frames.length).toBe(count);
    output.resume();
    await clock.advance(100);
    expect(sink.frames.length).toBe(count + 5);
    output.pause();
    output.clearBuffer();
    await clock.advance(100);
    // The clear ended the pause (in the sink too): the ambient goes on.
    expect(sink.frames.length).toBeGreaterThanOrEqual(count + 9);
  });

  it('stops when the session closes: no timer left, no listener, nothing more sent', async () => {
    const { clock, session, sink, background, output, state } = setup({ ambient: true, thinking: true });
    expect(session.listenerCount('agent_state_changed')).toBe(1);
    state('thinking');
    await clock.advance(300);
    expect(sink.frames.length).toBeGreaterThan(10);
    await session.close();
    expect(background.closed).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    expect(session.listenerCount('agent_state_changed')).toBe(0);
    expect(session.listenerCount('close')).toBe(0);
    const count = sink.frames.length;
    await clock.advance(1000);
    expect(sink.frames.length).toBe(count);
    // Speech still passes, untouched.
    const frame = speechFrame();
    await output.captureFrame(frame);
    expect(sink.frames.at(-1)!.frame).toBe(frame);
  });

  it('skips a tick rather than queue when the sink has not taken the last frame', async () => {
    const clock = new VirtualClock({ autoAdvance: false });
    const session = new AgentSession({ clock });
    let release: () => void = () => {};
    let captured = 0;
    const stuck = new (class extends NullAudioOutput {
      protected override onCaptureFrame(): Promise<void> {
        captured++;
        return new Promise((resolve) => {
          release = resolve;
        });
      }
    })(clock);
    const background = new BackgroundAudio(session, { ambient: true });
    background.wrap(stuck);
    await clock.advance(200);
    expect(captured).toBe(1);
    expect(background.stats).toEqual({ gapFramesSent: 1, gapTicksSkipped: 9 });
    release();
    await clock.advance(20);
    expect(captured).toBe(2);
    background.close();
  });

  it('follows a real session: ticks while a tool runs, and the reply plays exactly as without it', async () => {
    const run = async (withBackground: boolean) => {
      const clock = new VirtualClock();
      const lookup = tool({
        name: 'lookup',
        description: 'Looks the weather up (slowly).',
        execute: async () => {
          await clock.sleep(1500);
          return 'sunny';
        },
      });
      const llm = new FakeLLM(clock, [
        { toolCalls: [{ name: 'lookup', args: {} }] },
        { text: 'It is sunny today.' },
      ]);
      const session = new AgentSession({ clock, llm, tts: new FakeTTS(clock) });
      const sink = new RecordingSink(clock);
      const background = withBackground ? new BackgroundAudio(session, { thinking: true }) : undefined;
      const states: Array<{ state: AgentState; atMs: number }> = [];
      session.on('agent_state_changed', (e) => states.push({ state: e.newState, atMs: e.atMs }));
      await session.start({
        agent: new Agent({ instructions: '', tools: [lookup] }),
        output: { audio: background ? background.wrap(sink) : sink },
      });
      const reply = session.generateReply({ userInput: 'weather?' });
      await reply.waitForPlayout();
      await session.close();
      return { sink, states, background, history: session.history.items.length };
    };
    const plain = await run(false);
    const mixed = await run(true);
    const thinkingAt = mixed.states.find((s) => s.state === 'thinking')!.atMs;
    const speakingAt = mixed.states.find((s) => s.state === 'speaking')!.atMs;
    expect(speakingAt - thinkingAt).toBeGreaterThanOrEqual(1500);
    const gap = mixed.sink.frames.filter((c) => c.atMs >= thinkingAt && c.atMs < speakingAt);
    expect(gap.length).toBeGreaterThan(60);
    expect(new Set(gap.map((c) => c.segment))).toEqual(new Set([1]));
    expect(gap.filter(loud).length).toBeGreaterThan(10);
    // The reply: the same frames at the same instants, and the same states at the same times.
    const speech = mixed.sink.frames.filter((c) => c.segment === 2);
    const timing = (frames: Captured[]) => frames.map((c) => [c.atMs, c.frame.samplesPerChannel]);
    expect(timing(speech)).toEqual(timing(plain.sink.frames));
    expect(mixed.states).toEqual(plain.states);
    expect(mixed.history).toBe(plain.history);
    // FakeTTS renders silence: the ticks fade out within 300 ms of speech, the rest is as the TTS made it.
    expect(speech.slice(Math.ceil(300 / 20) + 1).every((c) => !loud(c))).toBe(true);
    expect(mixed.background!.closed).toBe(true);
  });
});
