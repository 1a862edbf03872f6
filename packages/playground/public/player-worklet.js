// Runs on the audio thread: plays the agent's segments back to back without gaps, stops a segment the
// moment it is cleared, and tells the page how far each segment got (that is what the agent records as
// heard when the user interrupts).
class PlayerProcessor extends AudioWorkletProcessor {
  constructor() {
    super();
    /** Chunks waiting to play: { segment, samples: Float32Array, offset }. */
    this.queue = [];
    /** segment -> { played, ended, started } */
    this.segments = new Map();
    this.clearedUpTo = 0;
    this.paused = false;
    this.sinceReport = 0;
    this.reportEvery = Math.round(sampleRate / 20);
    this.port.onmessage = (event) => this.onCommand(event.data);
  }

  segment(id) {
    let s = this.segments.get(id);
    if (!s) {
      s = { played: 0, ended: false, started: false };
      this.segments.set(id, s);
    }
    return s;
  }

  onCommand(command) {
    switch (command.type) {
      case 'audio':
        if (command.segment <= this.clearedUpTo) return;
        this.segment(command.segment);
        this.queue.push({ segment: command.segment, samples: command.samples, offset: 0 });
        break;
      case 'end':
        if (command.segment <= this.clearedUpTo) return;
        this.segment(command.segment).ended = true;
        this.finishDrained();
        break;
      case 'clear': {
        // A cut also ends a pause: the next segment plays as soon as it arrives.
        this.paused = false;
        this.clearedUpTo = Math.max(this.clearedUpTo, command.segment);
        this.queue = this.queue.filter((chunk) => chunk.segment > this.clearedUpTo);
        const s = this.segments.get(command.segment);
        this.segments.delete(command.segment);
        this.report('finished', command.segment, s ? s.played : 0, true);
        break;
      }
      case 'reset':
        // A new session numbers its segments from 1 again.
        this.queue = [];
        this.segments.clear();
        this.clearedUpTo = 0;
        this.paused = false;
        break;
      case 'pause':
        this.paused = true;
        break;
      case 'resume':
        this.paused = false;
        break;
    }
  }

  report(type, segment, playedSamples, interrupted) {
    this.port.postMessage({
      type,
      segment,
      playedMs: (playedSamples * 1000) / sampleRate,
      interrupted,
      time: currentTime,
    });
  }

  /** A segment that was ended and has nothing left to play is finished. */
  finishDrained() {
    for (const [id, s] of this.segments) {
      if (s.ended && !this.queue.some((chunk) => chunk.segment === id)) {
        this.segments.delete(id);
        this.report('finished', id, s.played, false);
      }
    }
  }

  process(_inputs, outputs) {
    const out = outputs[0][0];
    out.fill(0);
    if (this.paused) return true;
    let written = 0;
    while (written < out.length && this.queue.length > 0) {
      const chunk = this.queue[0];
      const s = this.segment(chunk.segment);
      if (!s.started) {
        s.started = true;
        this.report('started', chunk.segment, 0, false);
      }
      const n = Math.min(out.length - written, chunk.samples.length - chunk.offset);
      out.set(chunk.samples.subarray(chunk.offset, chunk.offset + n), written);
      chunk.offset += n;
      written += n;
      s.played += n;
      if (chunk.offset === chunk.samples.length) {
        this.queue.shift();
        if (s.ended) this.finishDrained();
      }
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    this.sinceReport += out.length;
    if (this.sinceReport >= this.reportEvery && this.queue.length > 0) {
      this.sinceReport = 0;
      const id = this.queue[0].segment;
      this.report('progress', id, this.segment(id).played, false);
    }
    return true;
  }
}

registerProcessor('voxwire-player', PlayerProcessor);
