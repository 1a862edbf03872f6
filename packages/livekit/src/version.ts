import manifest from '../package.json' with { type: 'json' };

/** This package's version, reported to the LiveKit server at registration (bundled from package.json). */
export const VERSION: string = manifest.version;
