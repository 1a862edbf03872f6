/**
 * What users feel: scripted conversations in the simulation harness (virtual time, the real session),
 * each an agent question and the user's answer, some answers with a pause inside. Compares VAD-only
 * endpointing at LiveKit's defaults (550 ms silence, 500 ms delay) with this model and ENDPOINTING_PRESET:
 * premature cut-offs (a turn committed during a pause inside it) and the time from the end of the
 * user's speech to the commit of the finished turn.
 *
 *   pnpm --filter @voxwire/plugin-turn-detector bench
 */
import { parseArgs } from 'node:util';
import type { TurnDetector } from '@voxwire/agents';
import { type EntryOf, type Scenario, simulate } from '@voxwire/testing';
import { EndOfTurnModel } from '../src/detector.js';
import { ENDPOINTING_PRESET } from '../src/preset.js';

/** An answer; `|` marks a pause inside the turn (the user is not done there). */
interface Case {
  question: string;
  answer: string;
}

const CASES: readonly Case[] = [
  { question: 'What can I get you today?', answer: 'A large oat milk latte, please.' },
  { question: 'What can I get you today?', answer: "I'd like to order, um | a large latte and a croissant." },
  { question: 'How many people will be joining?', answer: 'Four.' },
  { question: 'How many people will be joining?', answer: "It's me and | my two kids." },
  { question: "What's the best number to reach you?", answer: '415 555 0134.' },
  { question: "What's the best number to reach you?", answer: 'It is 415 | 555 | 0134.' },
  { question: 'Where are you flying from?', answer: 'From Chicago.' },
  { question: 'Where are you flying from?', answer: "I'll be leaving from, uh | Chicago O'Hare." },
  { question: 'Shall I book it?', answer: 'Yes please.' },
  { question: 'Shall I book it?', answer: 'Yes, but | can you make it for eight instead?' },
  { question: 'Is there anything else?', answer: "No, that's all, thanks." },
  { question: 'Is there anything else?', answer: 'Yes, I also need | a rental car for the weekend.' },
  { question: 'What is the delivery address?', answer: '1200 Market Street.' },
  { question: 'What is the delivery address?', answer: "It's 1200 | Market Street, apartment 5." },
  { question: 'Which toppings would you like?', answer: 'Pepperoni and mushrooms.' },
  { question: 'Which toppings would you like?', answer: 'Pepperoni, mushrooms and | olives.' },
  { question: 'When would you like to come in?', answer: 'Tomorrow morning at nine.' },
  { question: 'When would you like to come in?', answer: 'Let me think | maybe Thursday afternoon.' },
  { question: 'How can I help you?', answer: 'I need to cancel my reservation.' },
  { question: 'How can I help you?', answer: 'I need to change my booking because | my flight got moved.' },
  { question: 'What kind of car would you like?', answer: 'Something small and cheap.' },
  { question: 'What kind of car would you like?', answer: 'I was thinking of a | compact one.' },
  { question: 'Do you have a preference for the time?', answer: 'Any time after six works.' },
  { question: 'Do you have a preference for the time?', answer: 'Any time after | six thirty.' },
  { question: 'Which movie would you like to see?', answer: 'The new Pixar one.' },
  { question: 'Which movie would you like to see?', answer: 'The one with, you know | the talking dog.' },
  { question: 'What is your zip code?', answer: '94110.' },
  { question: 'What is your zip code?', answer: 'Nine four | one one zero.' },
  { question: 'What can I do for you?', answer: 'What time do you close tonight?' },
  { question: 'What can I do for you?', answer: 'So I was wondering | if you have any vegan options.' },
];

const PAUSES_MS = [600, 900, 1300];
const WORD_MS = 280;
const START_MS = 6000;

type Setup = 'vad' | 'vad-livekit' | 'model';

function scenario(c: Case, pauseMs: number, setup: Setup): Scenario {
  const parts = c.answer.split('|').map((p) => p.trim());
  const user: NonNullable<Scenario['user']> = [];
  let at = START_MS;
  for (const part of parts) {
    const endMs = at + part.split(/\s+/).length * WORD_MS;
    user.push({ startMs: at, endMs, transcript: part });
    at = endMs + pauseMs;
  }
  const common = {
    agents: [{ name: 'assistant', onEnter: { say: c.question } }],
    stt: { finalDelayMs: 200 },
    user,
    llm: { fallback: { text: 'Okay.', ttftMs: 300 } },
  };
  if (setup !== 'model') {
    // Voxwire counts the delay from the last speech, LiveKit from the VAD's end-of-speech event.
    const minEndpointingDelay = setup === 'vad' ? 500 : 550 + 500;
    return {
      ...common,
      vad: { minSilenceMs: 550 },
      session: { turnHandling: { minEndpointingDelay, maxEndpointingDelay: 3000 } },
    };
  }
  return {
    ...common,
    vad: { minSilenceMs: ENDPOINTING_PRESET.vadMinSilenceDurationMs },
    session: { turnHandling: { ...ENDPOINTING_PRESET.turnHandling } },
  };
}

interface Tally {
  turns: number;
  cutOffs: number;
  latencies: number[];
}

async function measure(setup: Setup, detector: TurnDetector | undefined): Promise<Tally> {
  const tally: Tally = { turns: 0, cutOffs: 0, latencies: [] };
  for (const c of CASES) {
    const pauses = c.answer.includes('|') ? PAUSES_MS : [0];
    for (const pause of pauses) {
      const s = scenario(c, pause, setup);
      const r = await simulate(s, detector ? { turnDetector: detector } : {});
      const commits = r.log.filter(
        (e): e is EntryOf<'user_turn_committed'> => e.type === 'user_turn_committed',
      );
      const lastEnd = (s.user ?? []).at(-1)?.endMs as number;
      tally.turns++;
      // Committed before the user's last words began: cut off in a pause.
      if (commits.some((commit) => commit.atMs < lastEnd)) tally.cutOffs++;
      const final = commits.find((commit) => commit.atMs >= lastEnd);
      if (final) tally.latencies.push(final.atMs - lastEnd);
      if (process.env.VERBOSE) {
        const cut = commits.some((commit) => commit.atMs < lastEnd) ? 'CUT ' : '    ';
        console.log(
          `${setup} ${cut}${String(final ? final.atMs - lastEnd : '-').padStart(5)} ms  pause ${pause}  ${c.answer}`,
        );
      }
    }
  }
  return tally;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

const { values } = parseArgs({ options: { model: { type: 'string' } } });
const model = await EndOfTurnModel.load(values.model ? { modelPath: values.model } : {});
const rows: Array<[string, Tally]> = [
  ['VAD only, 550 ms silence, delay 500 ms', await measure('vad', undefined)],
  ['VAD only, as LiveKit: 550 + 500 ms', await measure('vad-livekit', undefined)],
  ['model + ENDPOINTING_PRESET', await measure('model', model)],
];
console.log(
  `${CASES.length} answers, ${PAUSES_MS.length} pause lengths (${PAUSES_MS.join(', ')} ms) for those with a pause inside`,
);
for (const [name, t] of rows) {
  console.log(
    `${name.padEnd(40)} turns ${t.turns}, premature cut-offs ${t.cutOffs} (${((100 * t.cutOffs) / t.turns).toFixed(0)}%), ` +
      `end of speech -> commit: median ${percentile(t.latencies, 0.5)} ms, p95 ${percentile(t.latencies, 0.95)} ms`,
  );
}
