import { type ChildProcess, spawn } from 'node:child_process';
import { APIConnectionError, type AudioFrame } from '@voxwire/agents';
import {
  FrameChunker,
  type BatchTTS,
  type ProviderCallOptions,
  SPECIFICATION_VERSION,
  type SynthesizedAudio,
  WavDecoder,
} from '@voxwire/agents/provider-utils';
import { EspeakNotFoundError } from './errors.js';

export interface EspeakTTSOptions {
  /** An espeak-ng voice, e.g. `en-us`, `en-gb`, `fr`, `de`, `en-us+f3` (`espeak-ng --voices` lists them). Default `en-us`. */
  voice?: string;
  /** Speaking rate in words per minute (80-450). Default 175. */
  wordsPerMinute?: number;
  /** Pitch, 0-99. Default 50. */
  pitch?: number;
  /** The program to run: a name on PATH or a path. Default `espeak-ng`. */
  binary?: string;
  /** Length of the audio frames handed to the session. Default 40 ms. */
  frameMs?: number;
}

/** espeak-ng writes 22.05 kHz mono 16-bit PCM. */
const ESPEAK_SAMPLE_RATE = 22050;

/**
 * Text-to-speech through the local `espeak-ng` program: robotic, but instant, offline and free, which
 * makes it the voice of Voxwire's no-key examples. Each sentence runs one short-lived process whose
 * output is streamed as it is produced; an aborted synthesis kills the process.
 *
 * ```ts
 * await EspeakTTS.check(); // throws EspeakNotFoundError, with install instructions, when it is missing
 * const session = new AgentSession({ vad, stt, llm, tts: new EspeakTTS({ voice: 'en-gb' }) });
 * ```
 */
export class EspeakTTS implements BatchTTS {
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** One process per text: the session cuts streamed text into sentences for it. */
  readonly kind = 'batch';
  readonly label = 'espeak-ng';
  readonly sampleRate = ESPEAK_SAMPLE_RATE;
  readonly numChannels = 1;
  readonly binary: string;
  private readonly args: string[];
  private readonly frameMs: number;

  constructor(options: EspeakTTSOptions = {}) {
    this.binary = options.binary ?? 'espeak-ng';
    const wpm = options.wordsPerMinute ?? 175;
    const pitch = options.pitch ?? 50;
    if (!(wpm >= 80 && wpm <= 450)) throw new RangeError(`wordsPerMinute must be within 80..450, got ${wpm}`);
    if (!(pitch >= 0 && pitch <= 99)) throw new RangeError(`pitch must be within 0..99, got ${pitch}`);
    const voice = options.voice ?? 'en-us';
    if (!/^[\w+-]+$/u.test(voice))
      throw new RangeError(`voice must be an espeak-ng voice name, got "${voice}"`);
    this.frameMs = options.frameMs ?? 40;
    // Text goes in on stdin (-b 1: as UTF-8), never on the command line.
    this.args = [
      '--stdout',
      '-b',
      '1',
      '-v',
      voice,
      '-s',
      String(Math.round(wpm)),
      '-p',
      String(Math.round(pitch)),
    ];
  }

  /**
   * Checks that the program runs and returns its version line. Rejects with `EspeakNotFoundError`
   * (whose message says how to install it) when it does not.
   */
  static check(binary = 'espeak-ng'): Promise<string> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(binary, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
      } catch (error) {
        reject(new EspeakNotFoundError(binary, error));
        return;
      }
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
      });
      child.once('error', (error) => reject(new EspeakNotFoundError(binary, error)));
      child.once('close', (code) => {
        if (code === 0) resolve(out.trim().split('\n')[0] ?? 'espeak-ng');
        else
          reject(
            new EspeakNotFoundError(binary, new Error(`\`${binary} --version\` exited with code ${code}`)),
          );
      });
    });
  }

  async *synthesize(text: string, options: ProviderCallOptions = {}): AsyncIterable<SynthesizedAudio> {
    const signal = options.signal;
    if (signal?.aborted || text.trim() === '') return;
    const child = spawn(this.binary, this.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    });
    exited.catch(() => {});
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    // The process may die before reading its input (killed on abort): that is not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(text, 'utf8');
    const kill = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', kill, { once: true });
    const decoder = new WavDecoder();
    let chunker: FrameChunker | undefined;
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        if (signal?.aborted) return;
        const frames: AudioFrame[] = [];
        for (const piece of decoder.push(chunk)) {
          chunker ??= new FrameChunker({
            sampleRate: piece.sampleRate,
            channels: piece.channels,
            durationMs: this.frameMs,
          });
          frames.push(...chunker.push(piece));
        }
        for (const frame of frames) {
          // Frames of the chunk in hand are not handed out once the synthesis was aborted.
          if (signal?.aborted) return;
          yield { frame };
        }
      }
      const code = await exited;
      if (signal?.aborted) return;
      if (code !== 0) {
        throw new APIConnectionError(`espeak-ng exited with code ${code}: ${stderr.trim() || 'no message'}`, {
          retryable: false,
        });
      }
      decoder.end();
      for (const frame of chunker?.flush() ?? []) yield { frame };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new EspeakNotFoundError(this.binary, error);
      const spawnFailure = await exited.then(
        () => undefined,
        (e: unknown) => e,
      );
      if ((spawnFailure as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
        throw new EspeakNotFoundError(this.binary, spawnFailure);
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', kill);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }
}
