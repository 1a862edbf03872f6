import type * as Ort from 'onnxruntime-node';

export type OrtModule = typeof Ort;

/** Normalizes `import()` of the CommonJS onnxruntime-node package across ESM and CJS callers. */
export async function importOrt(): Promise<OrtModule> {
  const mod = (await import('onnxruntime-node')) as OrtModule & { default?: OrtModule };
  return typeof mod.InferenceSession === 'function' ? mod : (mod.default as OrtModule);
}
