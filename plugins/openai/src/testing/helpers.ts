import type { LLMStreamPart } from '@voxwire/agents/provider-utils';

/** Drains a stream, returning what came before the error (if any) and the error itself. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

export function textOf(parts: readonly LLMStreamPart[]): string {
  return parts.map((p) => (p.type === 'text_delta' ? p.text : '')).join('');
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
