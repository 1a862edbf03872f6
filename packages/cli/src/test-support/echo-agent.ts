import { Agent, AgentSession, defineAgent, type LLM } from '@voxwire/agents';
import { SPECIFICATION_VERSION } from '@voxwire/agents/provider-utils';

const VERSION = 'version 1';

const echo: LLM = {
  label: 'echo',
  model: 'echo',
  specificationVersion: SPECIFICATION_VERSION,
  supportsToolCalls: false,
  async *chat({ messages }) {
    const last = messages.at(-1);
    const heard =
      last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
    yield { type: 'text_delta', text: `echo: ${heard}` };
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
