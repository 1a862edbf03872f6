// Runs on the audio thread: turns microphone samples into 16-bit PCM chunks of `chunkSamples` and hands
// them to the page with their level, so the page can send them and see when the user last spoke.
class CaptureProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.chunkSamples = options.processorOptions.chunkSamples;
    this.chunk = new Int16Array(this.chunkSamples);
    this.filled = 0;
    this.sumSquares = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      const sample = Math.max(-1, Math.min(1, channel[i]));
      this.sumSquares += sample * sample;
      this.chunk[this.filled++] = sample < 0 ? sample * 0x8000 : sample * 0x7fff;
      if (this.filled === this.chunkSamples) {
        const rms = Math.sqrt(this.sumSquares / this.chunkSamples);
        // currentTime is the start of this render quantum; the chunk ends within it.
        this.port.postMessage({ pcm: this.chunk.buffer, rms, time: currentTime }, [this.chunk.buffer]);
        this.chunk = new Int16Array(this.chunkSamples);
        this.filled = 0;
        this.sumSquares = 0;
      }
    }
    return true;
  }
}

registerProcessor('voxwire-capture', CaptureProcessor);
