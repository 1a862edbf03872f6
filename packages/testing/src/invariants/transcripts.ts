import type { LogModel } from './model.js';

type Report = (message: string, atMs: number, entries: number[]) => void;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Whether `needle`'s words appear in `haystack`, in order and next to each other. */
function containsRun(haystack: string[], needle: string[]): boolean {
  if (needle.length === 0) return true;
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((w, k) => haystack[i + k] === w)) return true;
  }
  return false;
}

/**
 * S13: every final transcript reaches the turn it is committed with. A final belongs to the first turn
 * committed after it, or, arriving with no new speech after a commit, to that turn (a late final); that
 * turn's last committed transcript must still hold the final's words. Only `clearUserTurn()`, a visibly
 * skipped turn or the session closing may discard them.
 */
export function checkS13(m: LogModel, report: Report): void {
  // A typed turn (`session.run()`) carries no spoken words: finals belong to the next spoken commit.
  const commits = m.entries('user_turn_committed').filter(({ entry }) => !entry.text);
  const latest = new Map<string, { index: number; transcript: string }>();
  for (const { index, entry } of commits) latest.set(entry.turnId, { index, transcript: entry.transcript });
  const skipped = new Set(m.entries('user_turn_skipped').map(({ entry }) => entry.turnId));
  const speechStarts = m.entries('vad_start_of_speech').map(({ index }) => index);
  const speechBetween = (from: number, to: number): boolean => speechStarts.some((i) => i > from && i < to);
  const clears = m
    .entries('action')
    .filter(({ entry }) => entry.action === 'clear_user_turn')
    .map(({ index }) => index);
  for (const { index, entry } of m.entries('user_input_transcribed')) {
    if (!entry.isFinal) continue;
    const heard = words(entry.transcript);
    if (heard.length === 0) continue;
    const commit = commits.find((c) => c.index > index);
    if (!commit) continue;
    if (clears.some((c) => c > index && c < commit.index)) continue;
    // A late final belongs to the turn committed before it from an interim (no new speech since). A
    // turn skipped visibly (a backchannel said over the agent) keeps none of its words, late ones included.
    const previous = [...commits].reverse().find((c) => c.index < index);
    if (previous && !speechBetween(previous.index, index)) {
      if (skipped.has(previous.entry.turnId)) continue;
      if (containsRun(words(latest.get(previous.entry.turnId)!.transcript), heard)) continue;
    }
    const final = latest.get(commit.entry.turnId)!;
    if (containsRun(words(final.transcript), heard)) continue;
    report(
      `the final transcript "${entry.transcript}" is missing from ${commit.entry.turnId}, committed as "${final.transcript}"`,
      final.index === commit.index ? commit.entry.atMs : m.log[final.index]!.atMs,
      [index, commit.index, final.index],
    );
  }
}
