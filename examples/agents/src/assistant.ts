/**
 * A voice assistant whose providers come from the environment. With no keys at all it still runs a
 * real local voice loop (Silero VAD, endpointing, interruptions, a local voice): `pnpm dev`.
 */
import { Agent, AgentSession, defineAgent, tool } from '@voxwire/agents';
import { loadVADs, vadFor } from './vads.js';
import { chooseProviders } from './providers.js';

class Assistant extends Agent {
  constructor(private readonly understands: boolean) {
    super({
      instructions:
        'You are a friendly voice assistant. Your answers are spoken aloud: keep them short, plain and ' +
        'conversational, without lists or formatting.',
      tools: [
        tool({
          name: 'current_time',
          description: 'The current local date and time.',
          execute: () => new Date().toString(),
        }),
      ],
    });
  }

  override async onEnter(): Promise<void> {
    this.session.say(
      this.understands
        ? 'Hello! What can I do for you?'
        : "Hello! I'm running offline. Say something, then pause, and I'll tell you what I heard.",
    );
  }
}

export default defineAgent({
  // Once per process: the VAD model is shared by every conversation.
  prewarm: loadVADs,
  async entry(ctx) {
    const providers = await chooseProviders();
    const vad = vadFor(ctx.prewarmed, providers.turnDetector);
    for (const notice of providers.notices) ctx.notify(notice.message, { level: notice.level });
    const session = new AgentSession({
      vad,
      stt: providers.stt,
      llm: providers.llm,
      tts: providers.tts,
      turnDetector: providers.turnDetector,
      turnHandling: providers.turnHandling,
    });
    // The providers were made for this conversation: they go with it (Cartesia keeps a socket open).
    session.on('close', () => {
      void providers.tts.close?.().catch(() => {});
    });
    await session.start({ agent: new Assistant(providers.understands), ...ctx.connect(session) });
  },
});
