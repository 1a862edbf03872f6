import type { LLM } from '@voxwire/agents';
import {
  type LLMChatOptions,
  type LLMMessage,
  type LLMStreamPart,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';
import { heardSeconds } from './heard-speech.js';

const HINTS = [
  'Talk over me while I answer: I stop as soon as you start.',
  'For a real conversation, set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server, and run pnpm dev again.',
  'Pause for half a second and I take my turn; a short cough does not count.',
];

/**
 * The offline stand-in for an LLM: it cannot understand, so it answers with what it knows, the length
 * of what it heard (or the text typed on the page), and a hint about what a key would unlock.
 */
export class OfflineLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'offline.llm';
  readonly model = 'offline';
  readonly supportsToolCalls = false;

  async *chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    const reply = offlineReply(options.messages);
    for (const piece of reply.split(/(?<= )/u)) {
      if (options.signal?.aborted) return;
      yield { type: 'text_delta', text: piece };
    }
    yield { type: 'finish', reason: 'stop' };
  }
}

export function offlineReply(messages: readonly LLMMessage[]): string {
  const userTurns = messages.filter((message) => message.role === 'user');
  const text = userText(userTurns.at(-1));
  const hint = HINTS[(userTurns.length - 1) % HINTS.length];
  const seconds = heardSeconds(text);
  if (seconds !== undefined) {
    const first =
      userTurns.length === 1
        ? " I'm running offline, so I can hear when you speak and when you stop, but not the words."
        : '';
    return `I heard you speak for ${seconds} seconds.${first} ${hint}`;
  }
  if (text === '') return `Hello! ${hint}`;
  return `You typed: ${text}. Offline I can only read it back. ${hint}`;
}

/** The text of a user message, images left out. */
export function userText(message: LLMMessage | undefined): string {
  if (message?.role !== 'user') return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
