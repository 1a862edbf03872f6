import { readFileSync } from 'node:fs';
import { DEFAULT_RETRY_POLICY } from '@voxwire/agents/provider-utils';
import { describe, expect, it } from 'vitest';

const readme = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8').replace(/\s+/gu, ' ');

describe('the READMEs tell the truth about retries', () => {
  it('state the retry-after maximum the core applies, and that a longer wait is not retried', () => {
    const seconds = DEFAULT_RETRY_POLICY.maxRetryAfterMs / 1000;
    for (const [name, text] of [
      ['plugin README', readme('../README.md')],
      ['repository README', readme('../../../README.md')],
    ] as const) {
      expect(/maxRetryAfterMs` \((\d+) s by default\)/u.exec(text)?.[1], name).toBe(String(seconds));
      expect(/asking for (longer|more than that) is not retried/u.test(text), name).toBe(true);
    }
  });
});
