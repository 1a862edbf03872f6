import type { LLM } from '@voxwire/agents';
import {
  type LLMChatOptions,
  type LLMMessage,
  type LLMStreamPart,
  SPECIFICATION_VERSION,
} from '@voxwire/agents/provider-utils';
import { userText as textOf } from './offline-llm.js';

const EMAIL_IN_TEXT = /[^\s@]+@[^\s@]+\.[^\s@.,!?]+/u;

/**
 * A scripted stand-in for an LLM, for the order desk without keys: it follows the one happy path
 * (order -> place_order -> email -> confirm_email -> done) from the tools it is offered and the last
 * items of the conversation, so the tool and AgentTask machinery can be seen working offline.
 */
export class ScriptedOrderLLM implements LLM {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly label = 'offline.scripted-order';
  readonly model = 'scripted';
  readonly supportsToolCalls = true;
  private calls = 0;

  async *chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    const tools = new Set((options.tools ?? []).map((t) => t.name));
    const messages = options.messages;
    const last = messages.at(-1);
    const userText = textOf([...messages].reverse().find((m) => m.role === 'user'));
    if (last?.role === 'tool') {
      yield* say(last.toolName === 'confirm_email' ? 'Thank you.' : `${last.output} Anything else?`);
      return;
    }
    if (tools.has('confirm_email')) {
      const email = EMAIL_IN_TEXT.exec(userText)?.[0];
      if (last?.role === 'user' && email) {
        yield* this.call('confirm_email', { email });
      } else {
        yield* say('What email address should I send the receipt to? You can type it below.');
      }
      return;
    }
    if (tools.has('place_order') && isUserTurn(last) && userText !== '') {
      yield* this.call('place_order', { items: [userText.replace(/^\(.*\)$/u, 'the house pizza')] });
      return;
    }
    yield* say('What would you like to order?');
  }

  private async *call(name: string, args: unknown): AsyncIterable<LLMStreamPart> {
    yield { type: 'tool_call', callId: `call_${++this.calls}`, name, arguments: JSON.stringify(args) };
    yield { type: 'finish', reason: 'tool_calls' };
  }
}

function isUserTurn(message: LLMMessage | undefined): boolean {
  return message?.role === 'user';
}

async function* say(text: string): AsyncIterable<LLMStreamPart> {
  yield { type: 'text_delta', text };
  yield { type: 'finish', reason: 'stop' };
}
