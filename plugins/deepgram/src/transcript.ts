import type { SpeechAlternative } from '@voxwire/agents/provider-utils';

const MS_PER_S = 1000;

/** One recognized word, in ms of the whole stream (reconnects included). */
export interface DeepgramWord {
  word: string;
  /** With `punctuate` / `smart_format`: the word as written in the transcript. */
  punctuatedWord: string | undefined;
  startMs: number;
  endMs: number;
  confidence: number | undefined;
  /** With `diarize`. */
  speaker: number | undefined;
}

/**
 * The core's `SpeechAlternative` (whose `words` it always fills), plus what Deepgram adds per word and
 * the transcript's span. The events' type is the core's; narrow to this to read the additions.
 */
export interface DeepgramSpeechAlternative extends SpeechAlternative {
  words: DeepgramWord[];
  /** Where the transcribed audio starts and ends, in ms of the stream. */
  startMs: number;
  endMs: number;
}

/**
 * `channel.alternatives` of a `Results` message (or of a REST answer) with times moved by `offsetMs`;
 * undefined when it is not the documented shape.
 */
export function parseAlternatives(
  raw: unknown,
  offsetMs: number,
  language: string | undefined,
  span?: { startMs: number; endMs: number },
): DeepgramSpeechAlternative[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: DeepgramSpeechAlternative[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { transcript, confidence, words, languages } = item as Record<string, unknown>;
    if (typeof transcript !== 'string') return undefined;
    const parsedWords = parseWords(words ?? [], offsetMs);
    if (parsedWords === undefined) return undefined;
    const detected = Array.isArray(languages) && typeof languages[0] === 'string' ? languages[0] : undefined;
    const lang = detected ?? language;
    out.push({
      text: transcript.trim(),
      ...(lang ? { language: lang } : {}),
      ...(typeof confidence === 'number' ? { confidence } : {}),
      words: parsedWords,
      startMs: span?.startMs ?? parsedWords[0]?.startMs ?? offsetMs,
      endMs: span?.endMs ?? parsedWords.at(-1)?.endMs ?? offsetMs,
    });
  }
  return out;
}

function parseWords(raw: unknown, offsetMs: number): DeepgramWord[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const words: DeepgramWord[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { word, punctuated_word, start, end, confidence, speaker } = item as Record<string, unknown>;
    if (typeof word !== 'string' || typeof start !== 'number' || typeof end !== 'number') return undefined;
    words.push({
      word,
      punctuatedWord: typeof punctuated_word === 'string' ? punctuated_word : undefined,
      startMs: offsetMs + start * MS_PER_S,
      endMs: offsetMs + end * MS_PER_S,
      confidence: typeof confidence === 'number' ? confidence : undefined,
      speaker: typeof speaker === 'number' ? speaker : undefined,
    });
  }
  return words;
}
