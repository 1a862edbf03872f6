import { createInterface } from 'node:readline';
import {
  type AgentSession,
  type AudioFrame,
  Job,
  type JobTransport,
  prewarmAgent,
  realClock,
  type SessionIO,
  silentLogger,
} from '@voxwire/agents';
import { redactLogText } from '@voxwire/agents/provider-utils';
import { CliError } from './errors.js';
import { paceRecording, RecordingAudioOutput, readRecording, writeRecording } from './file-audio.js';
import { loadAgentFile } from './load.js';
import type { Output } from './output.js';
import { SettleWatcher } from './settle.js';

// biome-ignore lint/suspicious/noExplicitAny: the console shows sessions of any user data type.
type AnySession = AgentSession<any>;

export interface ConsoleOptions {
  file: string;
  /** A WAV file played into the agent as the user's microphone, at real speed. */
  input?: string | undefined;
  /** Where to write the agent's voice (mono, 24 kHz) on the conversation's timeline. */
  output?: string | undefined;
  /** Longest wait for the agent to answer one line or to finish after the input file. Default 60000 ms. */
  maxWaitMs?: number;
}

/**
 * `voxwire console`: the agent in the terminal. Typed lines become user turns and replies are printed
 * (text mode); with `--input`, a WAV file is the microphone and `--output` records the agent's voice.
 */
export async function runConsole(
  options: ConsoleOptions,
  out: Output,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const clock = realClock();
  const recording = options.input ? readRecording(options.input, (text) => out.warn(text)) : undefined;
  const definition = await loadAgentFile(options.file);
  const prewarmed = await prewarmAgent(definition);
  const startMs = clock.now();
  const stop = new AbortController();
  const audioMode = recording !== undefined || options.output !== undefined;
  const recorder = audioMode ? new RecordingAudioOutput(clock, startMs) : undefined;
  let session: AnySession | undefined;
  let watcher: SettleWatcher | undefined;
  let inputDone: Promise<void> = Promise.resolve();

  const printer = new TranscriptPrinter(out);
  const transport: JobTransport = {
    name: 'console',
    io(): SessionIO {
      let audio: AsyncIterable<AudioFrame> | undefined;
      if (recording) {
        const frames = paceRecording(recording, clock, startMs, stop.signal);
        let finished!: () => void;
        inputDone = new Promise((resolve) => {
          finished = resolve;
        });
        audio = (async function* () {
          yield* frames;
          finished();
        })();
      }
      return {
        input: audio ? { audio } : {},
        output: { ...(recorder ? { audio: recorder } : {}), text: printer },
      };
    },
    onSessionConnected(connected) {
      session = connected;
      watcher = new SettleWatcher(connected);
      printer.follow(connected, recording !== undefined);
    },
    notify: (notice) => out.info(`[${notice.level}] ${redactLogText(notice.message)}`),
  };

  const job = new Job({ definition, prewarmed, transport, logger: silentLogger, clock });
  await job.run();
  if (!session || !watcher) {
    await job.shutdown('no session');
    throw new CliError('The agent did not start a session (see the messages above).');
  }
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  let code = 0;
  try {
    if (recording) {
      out.info(`Playing ${options.input} (${(recording.durationMs / 1000).toFixed(1)} s) into the agent…`);
      await inputDone;
      if (!(await watcher.wait(clock, 1200, maxWaitMs))) {
        out.warn(`the agent was still busy ${maxWaitMs} ms after the input ended`);
      }
    } else {
      code = await chat(session, watcher, out, stdin, maxWaitMs);
    }
  } finally {
    stop.abort();
    await job.shutdown('console ended');
  }
  if (recorder && options.output) {
    writeRecording(options.output, recorder.render(clock.now() - startMs));
    out.info(`Wrote the agent's voice to ${options.output}.`);
  }
  return code;
}

async function chat(
  session: AnySession,
  watcher: SettleWatcher,
  out: Output,
  stdin: NodeJS.ReadableStream,
  maxWaitMs: number,
): Promise<number> {
  const clock = session.clock;
  const interactive = (stdin as { isTTY?: boolean }).isTTY === true;
  if (interactive) out.info('Type to the agent; an empty line or Ctrl-D ends.');
  await watcher.wait(clock, 100, maxWaitMs);
  const rl = createInterface({ input: stdin, terminal: false });
  const prompt = () => {
    if (interactive) out.write('you> ');
  };
  prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === '' && interactive) break;
    if (line === '' || session.closed) continue;
    if (!interactive) out.info(`you> ${line}`);
    session.generateReply({ userInput: line });
    if (!(await watcher.wait(clock, 100, maxWaitMs))) out.warn(`no answer within ${maxWaitMs} ms`);
    if (session.closed) break;
    prompt();
  }
  rl.close();
  await watcher.wait(clock, 100, maxWaitMs);
  return 0;
}

/** Prints the conversation as it happens: the agent's words as they are spoken, tools, turns. */
class TranscriptPrinter {
  private speaking = false;

  constructor(private readonly out: Output) {}

  captureText(text: string): void {
    if (!this.speaking) this.out.write('agent> ');
    this.speaking = true;
    this.out.write(text);
  }

  flush(): void {
    if (this.speaking) this.out.write('\n');
    this.speaking = false;
  }

  follow(session: AnySession, showUserTurns: boolean): void {
    session.on('conversation_item_added', ({ item }) => {
      if (item.type === 'function_call') this.line(`  [tool] ${item.name}(${item.arguments})`);
      else if (item.type === 'function_call_output') {
        this.line(`  [tool] ${item.name} ${item.isError ? 'failed' : '->'} ${item.output}`);
      } else if (item.type === 'message' && item.role === 'user' && showUserTurns) {
        this.line(`you> ${item.content.filter((c) => typeof c === 'string').join('')}`);
      } else if (item.type === 'message' && item.role === 'assistant') {
        // Text-only replies arrive whole, without a flush of the transcript: end their line here.
        this.flush();
        if (item.interrupted) this.line('  (interrupted)');
      }
    });
    session.on('metrics_collected', ({ metrics }) => {
      if (metrics.type === 'turn') {
        this.line(`  [turn] end of speech -> reply audio: ${Math.round(metrics.endToEndLatencyMs)} ms`);
      }
    });
    session.on('error', (e) =>
      this.line(
        `  [error] ${e.source}: ${redactLogText(e.error instanceof Error ? e.error.message : String(e.error))}`,
      ),
    );
  }

  private line(text: string): void {
    if (this.speaking) {
      this.out.write('\n');
      this.speaking = false;
    }
    this.out.info(text);
  }
}
