import { countWords } from '@voxwire/agents/provider-utils';
import type { LogModel } from './model.js';
import { eps, USER_REASONS } from './tolerance.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

/**
 * S9: user activity interrupts only once the user's speech reaches the minimum duration, and the minimum
 * words too when that threshold is set (0: no word requirement), whichever source reports it. Speech and
 * words count against a speech step only from when that step took the output (or its tools started) and
 * from the last commit: speech of a committed turn never cuts the reply to it, and a step that begins
 * while the user talks is not cut in the instant it appears.
 */
export function checkS9(m: LogModel, report: Report): void {
  const th = m.config.turnHandling;
  const minWords = th.minInterruptionWords;
  const minMs = th.minInterruptionDuration;
  const slack = eps(m);
  const seenTurns = new Set<string>();
  const firstCommits = m.entries('user_turn_committed').filter(({ entry }) => {
    // A typed turn (`session.run()`) resets nothing: the speech heard meanwhile still counts.
    if (entry.text || seenTurns.has(entry.turnId)) return false;
    seenTurns.add(entry.turnId);
    return true;
  });
  // When each speech's current step began: it took the output, or released it for its tools.
  const stepStarts = [...m.entries('speech_authorized'), ...m.entries('speech_released')].sort(
    (a, b) => a.index - b.index,
  );
  for (const { index, entry } of m.entries('speech_interrupted')) {
    if (!USER_REASONS.has(entry.reason)) continue;
    const spokenMs = m.voicedMsAt(entry.atMs);
    // A late final re-commits its turn under the same id: the turn began at its first commit.
    const lastCommit = firstCommits.filter(({ index: i }) => i < index).pop();
    const since = Math.min(lastCommit?.index ?? -1, index);
    // The words heard since the last commit: its finals plus the latest interim.
    const finals: string[] = [];
    let interim = '';
    let words = 0;
    for (const { index: i, entry: t } of m.entries('user_input_transcribed')) {
      if (i <= since || i >= index) continue;
      if (t.isFinal) {
        finals.push(t.transcript);
        interim = '';
      } else interim = t.transcript;
      words = Math.max(words, countWords([...finals, interim].join(' ')));
    }
    let ok: boolean;
    let heardMs = spokenMs;
    if (entry.reason === 'user_speech' || entry.reason === 'user_words') {
      // Only a start the session could know was over the user's speech counts: one while userState was
      // already `speaking` (before the VAD confirms speech, the step was there as far as it can tell).
      const overUser = (i: number): boolean => m.userState.beforeIndex(i) === 'speaking';
      const stepStart = stepStarts
        .filter(({ index: i, entry: s }) => i < index && s.speechId === entry.speechId)
        .pop();
      const starts = [stepStart, lastCommit].filter(
        (s): s is NonNullable<typeof s> => s !== undefined && overUser(s.index),
      );
      const from = starts.reduce((t, s) => Math.max(t, s.entry.atMs), Number.NEGATIVE_INFINITY);
      // The words may be a late transcript of the utterance before the one under way; speech that ended
      // before the last commit belongs to the committed turn.
      const committedAt = lastCommit?.entry.atMs ?? Number.NEGATIVE_INFINITY;
      heardMs = m.utterances
        .filter((u) => u.start <= entry.atMs && u.end > committedAt)
        .slice(-2)
        .reduce((best, u) => {
          const voiced = u.parts.reduce(
            (sum, p) => sum + Math.max(0, Math.min(entry.atMs, p.end) - Math.max(from, p.start)),
            0,
          );
          return Math.max(best, voiced);
        }, 0);
      ok =
        heardMs >= minMs - slack &&
        (entry.userSpeechMs ?? minMs) >= minMs &&
        words >= minWords &&
        (entry.reason === 'user_speech' || words > 0);
    } else {
      const turnWords = lastCommit ? countWords(lastCommit.entry.transcript) : 0;
      // A committed turn cuts on the strength of its own speech, which may have ended just before a new
      // utterance starts at the very moment of the commit.
      const lastSpeech = lastCommit?.entry.lastSpeechMs;
      let turnSpokenMs = lastSpeech === undefined || lastSpeech === null ? 0 : m.voicedMsAt(lastSpeech);
      // The turn's speech is any utterance heard between the previous commit and this one (with
      // turnDetection 'stt', lastSpeechMs is when the final came, not when the audio ended).
      if (lastCommit) {
        const previousAt = firstCommits.filter(({ index: i }) => i < lastCommit.index).pop()?.entry.atMs;
        for (const u of m.utterances) {
          if (u.start > lastCommit.entry.atMs || u.end <= (previousAt ?? Number.NEGATIVE_INFINITY)) continue;
          const voiced = u.parts.reduce(
            (sum, p) => sum + Math.max(0, Math.min(lastCommit.entry.atMs, p.end) - p.start),
            0,
          );
          turnSpokenMs = Math.max(turnSpokenMs, voiced);
        }
      }
      heardMs = Math.max(spokenMs, turnSpokenMs);
      ok = turnWords > 0 && Math.max(turnWords, words) >= minWords && heardMs >= minMs - slack;
    }
    if (!ok) {
      report(
        `${entry.speechId} was interrupted (${entry.reason}) after ${heardMs} ms of speech that counts against it and ${words} word(s) (needs ${minMs} ms${minWords > 0 ? ` and ${minWords} word(s)` : ''})`,
        entry.atMs,
        [index],
      );
    }
  }
}

/** S10: one `agent_false_interruption` per pause, and paused audio never resumes without one. */
export function checkS10(m: LogModel, report: Report): void {
  const paused = new Map<string, { index: number; announced: number }>();
  const cut = new Set<string>();
  m.log.forEach((entry, index) => {
    switch (entry.type) {
      case 'speech_paused':
        paused.set(entry.speechId, { index, announced: 0 });
        break;
      case 'agent_false_interruption': {
        const p = paused.get(entry.speechId);
        if (cut.has(entry.speechId)) {
          report(
            `agent_false_interruption for ${entry.speechId} after it was interrupted (it cannot resume)`,
            entry.atMs,
            [index],
          );
        } else if (!p) {
          report(`agent_false_interruption for ${entry.speechId}, which was not paused`, entry.atMs, [index]);
        } else if (++p.announced > 1) {
          report(
            `${p.announced} agent_false_interruption events for one pause of ${entry.speechId}`,
            entry.atMs,
            [p.index, index],
          );
        }
        break;
      }
      case 'speech_resumed': {
        const p = paused.get(entry.speechId);
        if (p && p.announced === 0) {
          report(`${entry.speechId} resumed without agent_false_interruption`, entry.atMs, [p.index, index]);
        }
        paused.delete(entry.speechId);
        break;
      }
      case 'speech_interrupted':
        cut.add(entry.speechId);
        paused.delete(entry.speechId);
        break;
      case 'speech_done':
        paused.delete(entry.speechId);
        break;
      case 'output_resumed':
      case 'output_frame': {
        const id = entry.speechId;
        const p = id ? paused.get(id) : undefined;
        if (id && p && p.announced === 0) {
          const what = entry.type === 'output_frame' ? 'a frame was sent' : 'the output resumed';
          report(`${id}: ${what} while paused, without agent_false_interruption`, entry.atMs, [
            p.index,
            index,
          ]);
          paused.delete(id);
        }
        break;
      }
    }
  });
}
