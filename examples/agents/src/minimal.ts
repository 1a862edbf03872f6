import { Agent, AgentSession, defineAgent, tool } from '@voxwire/agents';
import * as openai from '@voxwire/plugin-openai';
import { SileroVAD } from '@voxwire/plugin-silero';
import { z } from 'zod';

const weather = tool({
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `Sunny and 21 degrees in ${city}.`,
});

export default defineAgent({
  prewarm: () => SileroVAD.load(), // once per process, shared by every conversation
  async entry(ctx) {
    const vad = ctx.prewarmed;
    const session = new AgentSession({
      vad,
      stt: new openai.STT(),
      llm: new openai.LLM(),
      tts: new openai.TTS(),
    });
    const agent = new Agent({
      instructions: 'You are a friendly voice assistant. Keep answers short.',
      tools: [weather],
    });
    await session.start({ agent, ...ctx.connect(session) });
  },
});
