/**
 * Cost of one prediction (feature extraction + ONNX inference) and of loading the model, on the calling
 * thread with one onnxruntime thread:
 *
 *   pnpm --filter @voxwire/plugin-turn-detector bench [--iterations 5000]
 */
import { parseArgs } from 'node:util';
import type { ConversationTurn } from '@voxwire/agents/provider-utils';
import { EndOfTurnModel } from '../src/detector.js';
import { conversationFeatures } from '../src/features.js';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '5000' } } });
const iterations = Number(values.iterations);

const USER = [
  "I'd like to order, um",
  'Yes.',
  "My number is 415 555 1234 and my name is Dana, that's D A N A.",
  'Can you book a table for four people at the Italian place on Market Street tomorrow at seven thirty in the evening, and also',
  'no thanks',
];
const conversations: ConversationTurn[][] = USER.map((user, i) => [
  {
    role: 'assistant',
    text: i % 2 === 0 ? 'What can I get you today?' : 'Sure. Anything else I can help you with?',
  },
  { role: 'user', text: user },
]);

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

const loadStarted = performance.now();
const model = await EndOfTurnModel.load();
const loadMs = performance.now() - loadStarted;

for (let i = 0; i < 500; i++)
  await model.predictEndOfTurn(conversations[i % conversations.length] as ConversationTurn[]);

const total: number[] = [];
const features: number[] = [];
const cpuStarted = process.cpuUsage();
const wallStarted = performance.now();
for (let i = 0; i < iterations; i++) {
  const turns = conversations[i % conversations.length] as ConversationTurn[];
  const t0 = performance.now();
  conversationFeatures(turns, 1 << 16);
  const t1 = performance.now();
  await model.predictEndOfTurn(turns);
  const t2 = performance.now();
  features.push(t1 - t0);
  total.push(t2 - t1);
}
const wallMs = performance.now() - wallStarted;
const cpu = process.cpuUsage(cpuStarted);
total.sort((a, b) => a - b);
features.sort((a, b) => a - b);
const us = (ms: number): string => `${(ms * 1000).toFixed(0)} µs`;
console.log(`model load (first in process): ${loadMs.toFixed(1)} ms`);
console.log(
  `predictEndOfTurn, ${iterations} calls: median ${us(percentile(total, 0.5))}, p95 ${us(percentile(total, 0.95))}, p99 ${us(percentile(total, 0.99))}, max ${us(total.at(-1) as number)}`,
);
console.log(
  `  of which feature extraction: median ${us(percentile(features, 0.5))}, p99 ${us(percentile(features, 0.99))}`,
);
console.log(
  `  CPU per call (user+system): ${us((cpu.user + cpu.system) / 1000 / iterations)}; wall per call ${us(wallMs / iterations)}`,
);
