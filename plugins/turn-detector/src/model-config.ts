import { FEATURE_VERSION } from './features.js';

/**
 * The description that sits beside a model's ONNX file (`<name>.json`): which features it was trained
 * on, its shape, the languages it covers with their thresholds, and how it was evaluated.
 */
export interface TurnModelConfig {
  format: 'voxwire-turn-detector';
  featureVersion: number;
  /** The ONNX file, relative to this description. */
  model: string;
  /** Rows of the hashed-feature embedding table. */
  buckets: number;
  embeddingSize: number;
  hiddenSize: number;
  /** Per supported language (lower-case primary BCP-47 subtag, e.g. `en`): the unlikely threshold. */
  languages: Record<string, { unlikelyThreshold: number }>;
  /** How the model was trained and what it scored on held-out data (informative). */
  training?: unknown;
}

/** Checks a parsed description; returns the problem, or undefined when it is usable. */
export function configProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const config = value as Partial<TurnModelConfig>;
  if (config.format !== 'voxwire-turn-detector') return `format is ${JSON.stringify(config.format)}`;
  if (config.featureVersion !== FEATURE_VERSION) {
    return `trained on feature version ${config.featureVersion}, this package extracts version ${FEATURE_VERSION}`;
  }
  if (typeof config.model !== 'string' || config.model === '') return 'no model file named';
  for (const key of ['buckets', 'embeddingSize', 'hiddenSize'] as const) {
    const n = config[key];
    if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) return `${key} is not a positive integer`;
  }
  if (typeof config.languages !== 'object' || config.languages === null) return 'no languages';
  for (const [language, entry] of Object.entries(config.languages)) {
    const threshold = (entry as { unlikelyThreshold?: unknown } | null)?.unlikelyThreshold;
    if (typeof threshold !== 'number' || !(threshold > 0 && threshold < 1)) {
      return `languages.${language}.unlikelyThreshold is not between 0 and 1`;
    }
  }
  return undefined;
}

/** `en-US`, `EN`, `en_GB` -> `en`; undefined stays undefined. */
export function primaryLanguage(language: string | undefined): string | undefined {
  if (language === undefined) return undefined;
  const primary = language.trim().toLowerCase().split(/[-_]/)[0];
  return primary === '' ? undefined : primary;
}
