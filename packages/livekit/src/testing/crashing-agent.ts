// An agent file for the job-process tests: what each job does is named by its dispatch metadata.
import { defineAgent } from '@voxwire/agents';
import { livekitJobContext } from '../worker/running-job.js';

export default defineAgent({
  async entry(ctx) {
    const metadata = livekitJobContext(ctx)?.job.metadata ?? '';
    if (metadata === 'throw') throw new Error('the agent threw');
    if (metadata === 'exit') {
      setTimeout(() => process.exit(3), 10);
      return;
    }
    if (metadata === 'hang') {
      setTimeout(() => {
        // Blocks this process's event loop for good, as a runaway synchronous loop would.
        for (;;) {}
      }, 10);
    }
  },
});
