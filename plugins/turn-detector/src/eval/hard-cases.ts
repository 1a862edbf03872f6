/**
 * Hand-written end-of-turn cases, none taken from the training corpora: the kinds of pause that trip up
 * silence-based endpointing. `complete: true` means the user has finished and the agent should answer.
 */
export type HardCaseCategory =
  | 'conjunction'
  | 'filler'
  | 'dictated_number'
  | 'address'
  | 'list'
  | 'question'
  | 'one_word'
  | 'statement'
  | 'unpunctuated';

export interface HardCase {
  category: HardCaseCategory;
  assistant?: string;
  user: string;
  complete: boolean;
}

const c = (
  category: HardCaseCategory,
  assistant: string | undefined,
  user: string,
  complete: boolean,
): HardCase =>
  assistant === undefined ? { category, user, complete } : { category, assistant, user, complete };

/** The agent's answer in the whole-session bench (packages/bench), before most of its user turns. */
const REPLY = 'Sure, I can help you with that.';

export const HARD_CASES: readonly HardCase[] = [
  // Trailing conjunctions: more is coming.
  c('conjunction', 'What can I get started for you?', 'a medium mocha and', false),
  c('conjunction', 'How can I help you today?', 'I need to reschedule my appointment because', false),
  c('conjunction', 'Would you like a window or an aisle seat?', 'window but', false),
  c('conjunction', 'Where would you like to go?', 'somewhere warm or', false),
  c('conjunction', 'Which date works for you?', 'Friday works so', false),
  c('conjunction', 'Is there anything else?', 'yes I also need a car and', false),
  c('conjunction', 'What kind of room would you like?', 'a double room with', false),
  c('conjunction', undefined, 'I was calling about my bill and', false),
  // Fillers: thinking aloud.
  c('filler', 'What would you like to order?', "I'd like to order, um", false),
  c('filler', 'What time would you like the reservation?', 'let me think, uh', false),
  c('filler', 'What is the name on the booking?', 'it should be under, hmm', false),
  c('filler', 'Where are you flying from?', 'I will be leaving from, uh', false),
  c('filler', 'How many tickets?', 'so um', false),
  c('filler', 'Which movie would you like to see?', 'the one with, you know', false),
  c('filler', 'What can I do for you?', 'well I was wondering, um', false),
  // Dictated numbers: pauses between groups.
  c('dictated_number', "What's the best number to reach you?", 'it is 415 555', false),
  c('dictated_number', "What's the best number to reach you?", 'four one five, five five five', false),
  c('dictated_number', 'Can I have the card number?', '4111 1111', false),
  c('dictated_number', 'What is your zip code?', 'nine four', false),
  c('dictated_number', "What's the best number to reach you?", 'it is 415 555 0134', true),
  c(
    'dictated_number',
    "What's the best number to reach you?",
    'four one five five five five zero one three four',
    true,
  ),
  c('dictated_number', 'What is your zip code?', '94110', true),
  c('dictated_number', 'Can I have your confirmation number?', "sure it's 482 913", true),
  // Addresses.
  c('address', 'What is the delivery address?', 'it is 1200', false),
  c('address', 'Where should the driver pick you up?', '350 Mission', false),
  c('address', 'What is the delivery address?', '1200 Market Street', true),
  c('address', 'Where should the driver pick you up?', "I'm at 350 Mission Street in San Francisco", true),
  c('address', 'Where do you want to go?', 'to the airport', true),
  // Lists.
  c('list', 'What toppings would you like?', 'pepperoni, mushrooms, and', false),
  c('list', 'What toppings would you like?', 'pepperoni, mushrooms, and olives', true),
  c('list', 'What can I get you?', 'two lattes, a croissant, and', false),
  c('list', 'What can I get you?', 'two lattes, a croissant and a muffin please', true),
  c('list', 'Who will be joining you?', 'me, my wife, and', false),
  // Questions: complete, answer them.
  c('question', undefined, 'What time do you close tonight?', true),
  c('question', 'Your table is booked for seven.', 'Can I bring my dog?', true),
  c('question', 'The flight leaves at nine.', 'Is there an earlier one?', true),
  c('question', undefined, 'How much is a large pizza', true),
  c('question', 'I found three hotels nearby.', 'which one is the cheapest', true),
  c('question', 'Sure, what would you like to know?', 'do you have vegan options', true),
  // One-word answers: complete.
  c('one_word', 'Shall I book it?', 'Yes.', true),
  c('one_word', 'Is that everything?', 'yep', true),
  c('one_word', 'Would you like a receipt?', 'no', true),
  c('one_word', 'How many people?', 'four', true),
  c('one_word', 'Which city?', 'Chicago', true),
  c('one_word', 'Do you want the large or the small?', 'large', true),
  c('one_word', 'Can I help with anything else?', 'nope', true),
  c('one_word', 'Shall I go ahead?', 'sure', true),
  // Plain statements.
  c('statement', 'How can I help you?', "I'd like to book a table for two tomorrow at seven", true),
  c('statement', 'How can I help you?', "I'd like to book a table for", false),
  c('statement', 'What would you like?', 'I want a large cappuccino with oat milk', true),
  c('statement', 'What would you like?', 'I want a large', false),
  c('statement', 'Is there anything else?', "no that's all thank you", true),
  c('statement', 'When would you like to fly?', 'next Monday morning', true),
  c('statement', 'When would you like to fly?', 'next Monday in the', false),
  c('statement', undefined, 'I need a taxi to the train station', true),
  c('statement', undefined, 'I need a taxi to the', false),
  c('statement', 'What is the problem with the car?', 'the brakes are making a weird noise', true),
  c('statement', 'What is the problem with the car?', 'the brakes are making a', false),
  // As recognizers that do not punctuate deliver them: lower-case, no question mark, no full stop.
  // Complete questions and requests, then turns stopped mid-sentence.
  c('unpunctuated', undefined, 'what time does the store open on sunday', true),
  c('unpunctuated', REPLY, 'how long does the delivery usually take', true),
  c('unpunctuated', REPLY, 'could you read me the last message again', true),
  c('unpunctuated', undefined, 'can you tell me what the weather will be like tomorrow', true),
  c('unpunctuated', 'Your order has shipped.', 'when will it arrive', true),
  c('unpunctuated', 'How can I help you?', 'do you have any tables free tonight', true),
  c('unpunctuated', 'The pharmacy is on Main Street.', 'is it open on weekends', true),
  c('unpunctuated', undefined, 'where is the nearest gas station', true),
  c('unpunctuated', 'Your flight is confirmed.', 'which terminal does it leave from', true),
  c('unpunctuated', 'I can book that for you.', 'how much will that cost', true),
  c('unpunctuated', undefined, 'are there any vegetarian dishes on the menu', true),
  c('unpunctuated', 'We have two rooms left.', 'does the room have a balcony', true),
  c('unpunctuated', REPLY, 'hello i would like to book a table for two tonight', true),
  c('unpunctuated', REPLY, 'please move my appointment to next friday afternoon', true),
  c('unpunctuated', undefined, 'i want to cancel my subscription', true),
  c('unpunctuated', REPLY, 'i need to change the shipping address on my order', true),
  c('unpunctuated', 'What can I do for you?', 'my package never arrived', true),
  c('unpunctuated', 'Is there anything else?', 'no thats everything thanks', true),
  c('unpunctuated', REPLY, 'i would like to order a', false),
  c('unpunctuated', undefined, 'what time does the', false),
  c('unpunctuated', 'How can I help you?', 'can you tell me if the', false),
  c('unpunctuated', undefined, 'how long does it take to get to', false),
  c('unpunctuated', 'What can I do for you?', 'i need to change my', false),
  c('unpunctuated', 'Your flight is confirmed.', 'is there a way to', false),
  c('unpunctuated', undefined, 'where can i find the', false),
  c('unpunctuated', 'How can I help you?', 'could you check whether my', false),
];
