/**
 * An order desk that uses tools and an AgentTask: the `place_order` tool hands the conversation to a
 * task that collects the customer's email address and has it confirmed, then finishes the order with it.
 * While the task runs, the tool's reply cannot be cut off by the user (the task owns the conversation),
 * and the confirmed address comes back to the tool as a plain return value.
 */
import { Agent, AgentSession, AgentTask, defineAgent, tool } from '@voxwire/agents';
import { loadVADs, vadFor } from './vads.js';
import { z } from 'zod';
import { ScriptedOrderLLM } from './offline/scripted-order-llm.js';
import { chooseProviders } from './providers.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/** Asks for an email address, reads it back, and completes once the customer confirms it. */
export class CollectEmail extends AgentTask<string> {
  constructor() {
    super({
      instructions:
        'Ask for the email address the receipt should go to. Read it back, spelling the part before the ' +
        '@ letter by letter, and ask the customer to confirm. Only when they confirm, call confirm_email. ' +
        'If they correct it, read back the corrected address and ask again.',
      tools: [
        tool({
          name: 'confirm_email',
          description: 'Record the email address the customer has just confirmed.',
          parameters: z.object({ email: z.string().describe('The confirmed address') }),
          execute: ({ email }) => {
            const address = email.trim().toLowerCase();
            if (!EMAIL.test(address)) return `"${email}" is not a valid email address: ask for it again.`;
            this.complete(address);
            return `Confirmed ${address}.`;
          },
        }),
      ],
    });
  }

  override async onEnter(): Promise<void> {
    this.session.generateReply({ instructions: 'Ask for the email address for the receipt.' });
  }
}

let orders = 0;

export const placeOrder = tool({
  name: 'place_order',
  description: 'Place the order once the customer has said what they want. Collects their email itself.',
  parameters: z.object({ items: z.array(z.string()).describe('What the customer ordered') }),
  async execute({ items }) {
    // Awaiting the task hands it the conversation until it completes.
    const email = await new CollectEmail();
    orders++;
    return `Order #${1000 + orders} placed: ${items.join(', ')}. The receipt goes to ${email}.`;
  },
});

export class OrderDesk extends Agent {
  constructor() {
    super({
      instructions:
        'You take food orders by voice for a small pizzeria. Keep answers short. When the customer has ' +
        'said what they want, call place_order with the items; then tell them the order number.',
      tools: [placeOrder],
    });
  }

  override async onEnter(): Promise<void> {
    this.session.say('Hi, this is the pizzeria. What would you like to order?');
  }
}

export default defineAgent({
  prewarm: loadVADs,
  async entry(ctx) {
    const providers = await chooseProviders();
    const vad = vadFor(ctx.prewarmed, providers.turnDetector);
    const llm = providers.understands ? providers.llm : new ScriptedOrderLLM();
    if (!providers.understands) {
      ctx.notify(
        'This example needs words: without OPENAI_API_KEY it runs a scripted demo. Type your order and your ' +
          'email below (e.g. "a margherita", then "ada@example.com") to see the tool and the AgentTask at work.',
        { level: 'warn' },
      );
    }
    for (const notice of providers.notices) ctx.notify(notice.message, { level: notice.level });
    const session = new AgentSession({
      vad,
      stt: providers.stt,
      llm,
      tts: providers.tts,
      turnDetector: providers.turnDetector,
      turnHandling: providers.turnHandling,
    });
    await session.start({ agent: new OrderDesk(), ...ctx.connect(session) });
  },
});
