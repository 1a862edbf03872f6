import { Agent, AgentSession, defineAgent, type LLM } from '@voxwire/agents';

const VERSION = 'version 1';

const echo: LLM = {
  label: 'echo',
  model: 'echo',
  capabilities: { toolCalls: false },
  async *chat({ chatCtx }) {
    const last = chatCtx.items.at(-1);
    yield { type: 'text_delta', text: `echo: ${last?.type === 'message' ? String(last.content[0]) : ''}` };
    yield { type: 'finish', reason: 'stop' };
  },
};

/** A small agent for CLI tests: no audio providers, an LLM that echoes, a notice naming its version. */
export default defineAgent({
  async entry(ctx) {
    const session = new AgentSession({ llm: echo });
    await session.start({ agent: new Agent({ instructions: '' }), ...ctx.connect(session) });
    ctx.notify(VERSION);
  },
});
