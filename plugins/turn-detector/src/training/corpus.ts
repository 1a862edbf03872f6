import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationTurn } from '@voxwire/agents/provider-utils';
import { hashFeature } from '../features.js';

export type Split = 'train' | 'dev' | 'test';

export interface Dialogue {
  id: string;
  source: 'sgd' | 'taskmaster';
  split: Split;
  turns: ConversationTurn[];
  /** Slot values the user said, by turn index (SGD annotates them): the short answers people give. */
  slotValues?: Map<number, string[]>;
}

/**
 * Reads the corpora from `dataDir`, which holds the dataset repositories as checked out from GitHub:
 * `dstc8-schema-guided-dialogue/` (its train/dev/test folders are its own splits) and `Taskmaster/`
 * (TM-4-2024 and, where present, TM-2-2020 / TM-1-2019; split by a hash of the conversation id).
 * Files are read in sorted order so the dialogues always come out in the same order.
 */
export function readCorpora(dataDir: string): Dialogue[] {
  const dialogues = [
    ...readSchemaGuided(join(dataDir, 'dstc8-schema-guided-dialogue')),
    ...readTaskmaster(join(dataDir, 'Taskmaster')),
  ];
  if (dialogues.length === 0) {
    throw new Error(
      `no dialogues under ${dataDir}: expected dstc8-schema-guided-dialogue/{train,dev,test}/dialogues_*.json and/or Taskmaster/TM-4-2024/data/*.json`,
    );
  }
  return dialogues;
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(dir, name));
}

interface SgdDialogue {
  dialogue_id: string;
  turns: Array<{
    speaker: string;
    utterance: string;
    frames?: Array<{ slots?: Array<{ start: number; exclusive_end: number }> }>;
  }>;
}

function slotValuesOf(dialogue: SgdDialogue): Map<number, string[]> {
  const out = new Map<number, string[]>();
  dialogue.turns.forEach((turn, index) => {
    if (turn.speaker !== 'USER') return;
    const values = (turn.frames ?? []).flatMap((frame) =>
      (frame.slots ?? []).map((slot) => turn.utterance.slice(slot.start, slot.exclusive_end)),
    );
    const unique = [...new Set(values.filter((value) => value.trim() !== ''))];
    if (unique.length > 0) out.set(index, unique);
  });
  return out;
}

function readSchemaGuided(root: string): Dialogue[] {
  const out: Dialogue[] = [];
  for (const split of ['train', 'dev', 'test'] as const) {
    for (const file of jsonFiles(join(root, split))) {
      if (!/dialogues_\d+\.json$/.test(file)) continue;
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as SgdDialogue[];
      for (const dialogue of parsed) {
        out.push({
          id: `sgd:${dialogue.dialogue_id}`,
          source: 'sgd',
          split,
          turns: dialogue.turns.map((turn) => ({
            role: turn.speaker === 'USER' ? 'user' : 'assistant',
            text: turn.utterance,
          })),
          slotValues: slotValuesOf(dialogue),
        });
      }
    }
  }
  return out;
}

interface TaskmasterDialogue {
  conversation_id: string;
  utterances: Array<{ speaker: string; text: string }>;
}

function readTaskmaster(root: string): Dialogue[] {
  const files = [
    ...jsonFiles(join(root, 'TM-4-2024', 'data')),
    ...jsonFiles(join(root, 'TM-2-2020', 'data')),
    ...['woz-dialogs.json', 'self-dialogs.json']
      .map((name) => join(root, 'TM-1-2019', name))
      .filter(existsSync),
  ];
  const out: Dialogue[] = [];
  for (const file of files) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as TaskmasterDialogue[];
    for (const dialogue of parsed) {
      const bucket = hashFeature(dialogue.conversation_id) % 10;
      out.push({
        id: `taskmaster:${dialogue.conversation_id}`,
        source: 'taskmaster',
        split: bucket === 0 ? 'test' : bucket === 1 ? 'dev' : 'train',
        turns: mergeRuns(
          dialogue.utterances
            .filter((u) => typeof u.text === 'string' && u.text.trim() !== '')
            .map((u) => ({ role: u.speaker.toLowerCase() === 'user' ? 'user' : 'assistant', text: u.text })),
        ),
      });
    }
  }
  return out;
}

/** Consecutive utterances of one speaker are one turn (Taskmaster sometimes splits them). */
function mergeRuns(turns: ConversationTurn[]): ConversationTurn[] {
  const out: ConversationTurn[] = [];
  for (const turn of turns) {
    const last = out[out.length - 1];
    if (last && last.role === turn.role) last.text = `${last.text} ${turn.text}`;
    else out.push({ ...turn });
  }
  return out;
}
