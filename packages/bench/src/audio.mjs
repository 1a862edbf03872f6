// The bench's user audio: espeak-ng sentences converted by sox to 16 kHz mono, laid out on a timeline
// of turns with known sample positions (where each utterance starts, where its last speech sample is,
// where a barge-in starts). Clips are made once into a git-ignored cache directory; the timelines are
// assembled in memory. `node src/audio.mjs` makes the clips and prints the timelines.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RATE = 16000;
export const FRAME_SAMPLES = 320; // 20 ms
export const FRAME_MS = 20;
export const CACHE_DIR = fileURLToPath(new URL('../.cache/audio/', import.meta.url));

/** Samples louder than this count as speech when locating an utterance's first and last speech sample. */
const SPEECH_LEVEL = 200;

// Ordered so that the turns with a barge-in (even ones) get the shorter sentences.
const SENTENCES = [
  'how long does the delivery usually take',
  'hello, I would like to book a table for two tonight',
  'what time does the store open on sunday',
  'please move my appointment to next friday afternoon',
  'could you read me the last message again',
  'can you tell me what the weather will be like tomorrow',
  'I want to cancel my subscription',
  'I need to change the shipping address on my order',
];
/** Room left after the user's last words of a turn: reply latency plus the reply's audio. */
const REPLY_ROOM_MS = 3000;
const BARGE_IN = 'wait, one more thing';
const WARM_UP = 'good morning, this is a short test call';
/** A turn with a pause in the middle: VAD-only endpointing cuts it, a turn detector should wait. */
const HESITATION = ['I would like to order a', 'large pizza with mushrooms'];

function clip(text) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const key = createHash('sha256').update(`en-us|${text}`).digest('hex').slice(0, 16);
  const raw = `${CACHE_DIR}${key}.s16`;
  if (!existsSync(raw)) {
    const wav = `${CACHE_DIR}${key}.espeak.wav`;
    execFileSync('espeak-ng', ['-v', 'en-us', '-s', '165', '-w', wav, text]);
    // -D: no dither, so silence stays digital zero and speech boundaries are exact.
    const tmp = `${raw}.tmp`;
    execFileSync('sox', [
      '-D',
      wav,
      '-r',
      String(RATE),
      '-c',
      '1',
      '-b',
      '16',
      '-e',
      'signed-integer',
      '-t',
      'raw',
      tmp,
    ]);
    renameSync(tmp, raw);
  }
  const bytes = readFileSync(raw);
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]) < SPEECH_LEVEL) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]) < SPEECH_LEVEL) last--;
  // Only the speech itself, so the timeline alone decides where silence is.
  return { text, samples: samples.slice(first, last + 1) };
}

/** Whether espeak-ng and sox are installed (the bench cannot run without them). */
export function audioToolsMissing() {
  const missing = [];
  for (const tool of ['espeak-ng', 'sox']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      missing.push(tool);
    }
  }
  return missing;
}

/**
 * A timeline of turns, one every `periodMs`: an optional warm-up turn (left out of the figures: it pays
 * for JIT compilation), then `cycle` distinct turns repeated `repeats` times, so runs of different
 * lengths hear the same turns. Kinds:
 * - `conversation`: one sentence per turn; in every even turn of the cycle (the first included) the user
 *   barges in `bargeInAfterMs` after the end of their sentence, while the agent is answering;
 * - `endpointing`: complete sentences alternating with a hesitant turn (`pauseMs` of silence inside).
 * Returns the samples and, per turn, the positions (in samples) the measurements need.
 */
export function timeline({
  kind = 'conversation',
  cycle = 24,
  repeats = 1,
  warmup = false,
  periodMs = 8000,
  bargeInAfterMs = 800,
  pauseMs = 1000,
} = {}) {
  const turns = (warmup ? 1 : 0) + cycle * repeats;
  const periodSamples = (periodMs * RATE) / 1000;
  const samples = new Int16Array(turns * periodSamples);
  const layout = [];
  const barge = clip(BARGE_IN);
  const hesitation = HESITATION.map(clip);
  for (let t = 0; t < turns; t++) {
    const isWarmup = warmup && t === 0;
    const position = (t - (warmup ? 1 : 0)) % cycle;
    const base = t * periodSamples + RATE / 5; // 200 ms of silence before each turn
    const turn = { index: t, warmup: isWarmup, parts: [], bargeIn: undefined };
    let at = base;
    const parts = isWarmup
      ? [clip(WARM_UP)]
      : kind === 'endpointing' && position % 2 === 1
        ? hesitation
        : [clip(SENTENCES[position % SENTENCES.length])];
    parts.forEach((part, i) => {
      samples.set(part.samples, at);
      turn.parts.push({ text: part.text, start: at, end: at + part.samples.length - 1 });
      at += part.samples.length + (i < parts.length - 1 ? (pauseMs * RATE) / 1000 : 0);
    });
    turn.start = turn.parts[0].start;
    turn.lastSpeech = turn.parts.at(-1).end;
    turn.text = turn.parts.map((p) => p.text).join(' ');
    if (kind === 'conversation' && (isWarmup || position % 2 === 0)) {
      const start = turn.lastSpeech + 1 + (bargeInAfterMs * RATE) / 1000;
      samples.set(barge.samples, start);
      turn.bargeIn = { text: barge.text, start, end: start + barge.samples.length - 1 };
    }
    const used = (turn.bargeIn?.end ?? turn.lastSpeech) - t * periodSamples;
    // The agent's answer to the last thing said must fit before the next turn.
    if (used + (REPLY_ROOM_MS * RATE) / 1000 > periodSamples) {
      throw new Error(`turn ${t} of ${kind} leaves too little room for the reply in ${periodMs} ms`);
    }
    layout.push(turn);
  }
  return { samples, turns: layout, periodMs, kind };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = audioToolsMissing();
  if (missing.length > 0) {
    console.error(`missing ${missing.join(' and ')}: apt-get install -y espeak-ng sox`);
    process.exit(1);
  }
  for (const kind of ['conversation', 'endpointing']) {
    const t = timeline({ kind });
    const ms = (s) => Math.round((s * 1000) / RATE);
    console.log(`${kind}: ${ms(t.samples.length) / 1000} s, ${t.turns.length} turns of ${t.periodMs} ms`);
    for (const turn of t.turns.slice(0, 4)) {
      const b = turn.bargeIn ? `, barge-in ${ms(turn.bargeIn.start)}-${ms(turn.bargeIn.end)} ms` : '';
      console.log(
        `  turn ${turn.index}: speech ${ms(turn.start)}-${ms(turn.lastSpeech)} ms "${turn.text}"${b}`,
      );
    }
  }
  console.log(`clips cached in ${CACHE_DIR}`);
}
