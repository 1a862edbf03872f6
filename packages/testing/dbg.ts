import { generateScenario, simulate, formatViolations } from './src/index.js';
const seed = Number(process.argv[2]);
const sc = generateScenario(seed);
const r = await simulate(sc, { seed });
console.log(formatViolations(r.violations));
for (const e of r.log) if (['speech_created','function_tools_executed','llm_tool_call','llm_request','preemptive_generation_started','preemptive_generation_discarded','preemptive_generation_used','user_turn_committed','tool_started','tool_finished','reply_started'].includes(e.type)) console.log(e.atMs, e.type, JSON.stringify(e).slice(0,220));
