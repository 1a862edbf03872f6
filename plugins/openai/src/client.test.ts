import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenAIConfigError } from './client.js';
import { LLM } from './llm/llm.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

function clearEnv(): void {
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('OPENAI_BASE_URL', '');
}

describe('client configuration', () => {
  it('refuses to start without a key for api.openai.com, naming the environment variable', () => {
    clearEnv();
    let error: unknown;
    try {
      new LLM();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OpenAIConfigError);
    expect((error as OpenAIConfigError).envVar).toBe('OPENAI_API_KEY');
    expect((error as Error).message).toContain('OPENAI_API_KEY');
    expect(() => new LLM({ baseURL: 'https://api.openai.com/v1' })).toThrow(OpenAIConfigError);
  });

  it('accepts a missing key for a local OpenAI-compatible server', () => {
    clearEnv();
    expect(() => new LLM({ baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.2' })).not.toThrow();
    vi.stubEnv('OPENAI_BASE_URL', 'http://localhost:8000/v1');
    expect(() => new LLM()).not.toThrow();
  });

  it('reads the key from the environment', () => {
    clearEnv();
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    expect(() => new LLM()).not.toThrow();
  });

  it('rejects a malformed baseURL and a non-positive timeout', () => {
    clearEnv();
    expect(() => new LLM({ baseURL: 'not a url' })).toThrow(/Invalid baseURL/);
    expect(() => new LLM({ apiKey: 'k', timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new LLM({ apiKey: 'k', retry: { maxRetries: -1 } })).toThrow(RangeError);
  });
});
