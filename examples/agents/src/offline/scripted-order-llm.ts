import {
  type ChatItem,
  type LLM,
  type LLMChatOptions,
  type LLMStreamPart,
  messageText,
} from '@voxwire/agents';

const EMAIL_IN_TEXT = /[^\s@]+@[^\s@]+\.[^\s@.,!?]+/u;

/**
 * A scripted stand-in for an LLM, for the order desk without keys: it follows the one happy path
 * (order -> place_order -> email -> confirm_email -> done) from the tools it is offered and the last
 * items of the conversation, so the tool and AgentTask machinery can be seen working offline.
 */
export class ScriptedOrderLLM implements LLM {
  readonly label = 'offline.scripted-order';
  readonly model = 'scripted';
  readonly capabilities = { toolCalls: true };
  private calls = 0;

  async *chat(options: LLMChatOptions): AsyncIterable<LLMStreamPart> {
    const tools = new Set((options.tools ?? []).map((t) => t.name));
    const items = options.chatCtx.items;
    const last = items.at(-1);
    const lastUser = [...items].reverse().find((i) => i.type === 'message' && i.role === 'user');
    const userText = lastUser && lastUser.type === 'message' ? messageText(lastUser) : '';
    if (last?.type === 'function_call_output') {
      yield* say(last.name === 'confirm_email' ? 'Thank you.' : `${last.output} Anything else?`);
      return;
    }
    if (tools.has('confirm_email')) {
      const email = EMAIL_IN_TEXT.exec(userText)?.[0];
      if (last?.type === 'message' && last.role === 'user' && email) {
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

function isUserTurn(item: ChatItem | undefined): boolean {
  return item?.type === 'message' && item.role === 'user';
}

async function* say(text: string): AsyncIterable<LLMStreamPart> {
  yield { type: 'text_delta', text };
  yield { type: 'finish', reason: 'stop' };
}
