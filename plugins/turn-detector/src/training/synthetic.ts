import type { Example } from './examples.js';
import type { SeededRandom } from './rng.js';

/**
 * Dictation the corpora hardly have: numbers read out in groups (phone, zip, card, booking codes) and
 * street addresses, each complete or stopped at a group boundary (where people pause) or mid-group.
 * Rendered the ways recognizers write them: grouped digits, dashed digits, one run of digits, or words.
 */

const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

interface NumberKind {
  questions: readonly string[];
  openers: readonly string[];
  groups: readonly number[];
}

const NUMBER_KINDS: readonly NumberKind[] = [
  {
    questions: [
      "What's the best phone number to reach you?",
      'Can I get a callback number?',
      'What is your phone number?',
      'Could you give me your cell number, please?',
    ],
    openers: ['', "it's", 'sure it is', 'my number is', 'yeah it is', 'you can reach me at', 'the number is'],
    groups: [3, 3, 4],
  },
  {
    questions: [
      "What's your zip code?",
      'Can you tell me the postal code?',
      'And the zip code for that address?',
    ],
    openers: ['', "it's", 'the zip is', 'zip code is'],
    groups: [5],
  },
  {
    questions: [
      'What is the card number?',
      'Please read me the card number.',
      'Which card would you like to use?',
    ],
    openers: ['', "it's", 'the card number is', 'okay it is'],
    groups: [4, 4, 4, 4],
  },
  {
    questions: [
      "What's your confirmation number?",
      'Do you have the booking reference?',
      'Can I have the order number?',
    ],
    openers: ['', "it's", 'the confirmation number is', 'yes it is'],
    groups: [3, 3],
  },
];

const STREETS = [
  'Main Street',
  'Market Street',
  'Elm Avenue',
  'Oak Drive',
  'Mission Boulevard',
  'Pine Road',
  'Lake Shore Drive',
];
const CITIES = ['in San Jose', 'in Chicago', 'in Portland Oregon', 'in Austin'];
const ADDRESS_QUESTIONS = [
  "What's the address?",
  'Where should we pick you up?',
  'What is the delivery address?',
];

function digitsOf(rng: SeededRandom, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(rng.int(0, 9));
  return out;
}

function render(groups: readonly string[], style: number): string {
  if (style === 0) return groups.join(' ');
  if (style === 1) return groups.join('-');
  if (style === 2) return groups.join('');
  return groups.map((group) => [...group].map((d) => DIGIT_WORDS[Number(d)]).join(' ')).join(' ');
}

function numberExample(rng: SeededRandom): Example {
  const kind = rng.pick(NUMBER_KINDS);
  const assistant = rng.pick(kind.questions);
  const opener = rng.pick(kind.openers);
  const groups = kind.groups.map((size) => digitsOf(rng, size));
  const style = rng.int(0, 3);
  const complete = rng.chance(0.5);
  let said = groups;
  if (!complete) {
    const total = groups.join('');
    if (groups.length > 1 && rng.chance(0.6)) said = groups.slice(0, rng.int(1, groups.length - 1));
    else said = [total.slice(0, rng.int(1, Math.max(1, total.length - 2)))];
  }
  // A run of digits said without groups stays one run when incomplete too.
  const spoken = render(said, complete || style !== 2 ? style : 2);
  const user = `${opener} ${spoken}`.trim();
  return { user, assistant, label: complete ? 1 : 0, kind: complete ? 'digits_complete' : 'digits_cut' };
}

function addressExample(rng: SeededRandom): Example {
  const assistant = rng.pick(ADDRESS_QUESTIONS);
  const number = String(rng.int(1, 9999));
  const street = rng.pick(STREETS);
  const opener = rng.pick(['', "it's", 'the address is', "I'm at"]);
  if (rng.chance(0.5)) {
    const city = rng.chance(0.4) ? ` ${rng.pick(CITIES)}` : '';
    return {
      user: `${opener} ${number} ${street}${city}`.trim(),
      assistant,
      label: 1,
      kind: 'address_complete',
    };
  }
  const streetWords = street.split(' ');
  const partial = rng.chance(0.5) ? number : `${number} ${streetWords.slice(0, -1).join(' ')}`;
  return { user: `${opener} ${partial}`.trim(), assistant, label: 0, kind: 'address_cut' };
}

export function syntheticExamples(rng: SeededRandom, count: number): Example[] {
  const out: Example[] = [];
  for (let i = 0; i < count; i++) out.push(rng.chance(0.75) ? numberExample(rng) : addressExample(rng));
  return out;
}
