// The Voxwire playground page: microphone -> socket -> agent -> socket -> speakers, plus what the
// session is doing. Plain browser JavaScript: the server serves this file as is.
const PROTOCOL = 1;
/** Microphone level (RMS, 0..1) above which the page counts the user as audible, for the latency column. */
const VOICE_RMS = 0.01;
const RECONNECT_MAX_MS = 5000;

const $ = (id) => document.getElementById(id);

// The secret came in the URL and is now in an HttpOnly cookie: keep it off the screen (screen shares,
// screenshots) and out of the history. Reloads and the socket use the cookie.
if (new URLSearchParams(location.search).has('token')) history.replaceState(null, '', location.pathname);

/** What happened on this page, with times: read by the browser test and handy in the console. */
const trace = {
  events: [],
  heardLatenciesMs: [],
  playback: { started: 0, finished: 0, interrupted: 0 },
  inputChunksSent: 0,
};
window.voxwirePlayground = trace;
/** Drops the socket as a network failure would (the page then reconnects): for tests and debugging. */
trace.dropConnection = () => socket?.close(4000, 'dropped on purpose');

function record(kind, detail = {}) {
  trace.events.push({ t: performance.now(), kind, ...detail });
  if (trace.events.length > 5000) trace.events.splice(0, 1000);
}

// ---------------------------------------------------------------- audio

const audio = {
  ctx: null,
  player: null,
  capture: null,
  mic: null,
  micTried: false,
  lastVoiceTime: -1,
  voiceSinceStart: false,
};

async function startAudio() {
  const ctx = new AudioContext({ latencyHint: 'interactive' });
  audio.ctx = ctx;
  // Created from the click on Start, so the autoplay policy lets it run.
  await ctx.resume();
  await ctx.audioWorklet.addModule('/player-worklet.js');
  await ctx.audioWorklet.addModule('/capture-worklet.js');
  const player = new AudioWorkletNode(ctx, 'voxwire-player', {
    numberOfInputs: 0,
    numberOfOutputs: 1,
    outputChannelCount: [1],
  });
  player.connect(ctx.destination);
  player.port.onmessage = (event) => onPlayerEvent(event.data);
  audio.player = player;
}

async function startMicrophone() {
  const ctx = audio.ctx;
  if (!navigator.mediaDevices?.getUserMedia) {
    notice(
      'error',
      `The microphone needs a secure page: open http://127.0.0.1:${location.port}/ or http://localhost:${location.port}/ on this machine.`,
    );
    return;
  }
  try {
    // Echo cancellation stays on: the agent must not hear itself through the speakers.
    audio.mic = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
  } catch (error) {
    const denied = error && (error.name === 'NotAllowedError' || error.name === 'SecurityError');
    const missing = error && (error.name === 'NotFoundError' || error.name === 'OverconstrainedError');
    notice(
      'error',
      denied
        ? 'Microphone access was denied. Allow the microphone for this page (the icon at the left of the address bar), then press Start again. You can still type below.'
        : missing
          ? 'No microphone was found. Plug one in and press Start again. You can still type below.'
          : `The microphone could not be opened (${error?.message}). You can still type below.`,
    );
    record('mic_error', { name: error?.name });
    $('start').hidden = false;
    $('start').textContent = 'Retry microphone';
    return;
  }
  const source = ctx.createMediaStreamSource(audio.mic);
  const capture = new AudioWorkletNode(ctx, 'voxwire-capture', {
    numberOfInputs: 1,
    numberOfOutputs: 1,
    processorOptions: { chunkSamples: Math.round(ctx.sampleRate / 50) },
  });
  // A silent path to the destination keeps the capture node pulled by the audio graph.
  const mute = ctx.createGain();
  mute.gain.value = 0;
  source.connect(capture).connect(mute).connect(ctx.destination);
  capture.port.onmessage = (event) => onCapture(event.data);
  audio.capture = capture;
  const track = audio.mic.getAudioTracks()[0];
  track.onended = () =>
    notice('error', 'The microphone stopped (unplugged or taken by another app). Press Start again.');
  record('mic_open', { sampleRate: ctx.sampleRate, label: track.label });
}

function onCapture({ pcm, rms, time }) {
  $('level').value = Math.min(1, rms * 4);
  if (rms > VOICE_RMS) {
    audio.lastVoiceTime = time;
    audio.voiceSinceStart = true;
  }
  if (session.ready && socket && socket.readyState === WebSocket.OPEN) {
    socket.send(pcm);
    trace.inputChunksSent++;
  }
}

function onAgentAudio(buffer) {
  const segment = new DataView(buffer).getUint32(0, true);
  const pcm = new Int16Array(buffer, 4);
  const samples = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 0x8000;
  audio.player?.port.postMessage({ type: 'audio', segment, samples }, [samples.buffer]);
}

function onPlayerEvent(event) {
  record(`playback_${event.type}`, {
    segment: event.segment,
    playedMs: Math.round(event.playedMs),
    interrupted: event.interrupted,
  });
  if (event.type === 'started') {
    trace.playback.started++;
    // The page's own measure: from the last audible sample of the user's voice to the first sample of
    // the reply leaving the player (both on the AudioContext's clock).
    if (audio.voiceSinceStart && audio.lastVoiceTime >= 0) {
      const latency = Math.round((event.time - audio.lastVoiceTime) * 1000);
      trace.heardLatenciesMs.push(latency);
      turns.heard(latency);
    }
    audio.voiceSinceStart = false;
    send({ type: 'playback_started', segment: event.segment });
  } else if (event.type === 'progress') {
    send({ type: 'playback_progress', segment: event.segment, playedMs: event.playedMs });
  } else if (event.type === 'finished') {
    trace.playback.finished++;
    if (event.interrupted) trace.playback.interrupted++;
    send({
      type: 'playback_finished',
      segment: event.segment,
      playedMs: event.playedMs,
      interrupted: event.interrupted,
    });
  }
}

// ---------------------------------------------------------------- socket

let socket = null;
const session = { ready: false, wanted: false, attempt: 0, timer: null };

function connect() {
  clearTimeout(session.timer);
  setConnection('connecting', 'connecting…');
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  ws.binaryType = 'arraybuffer';
  socket = ws;
  ws.onopen = () => {
    audio.player?.port.postMessage({ type: 'reset' });
    ws.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL, sampleRate: audio.ctx.sampleRate }));
  };
  ws.onmessage = (event) => {
    if (typeof event.data === 'string') onServerMessage(JSON.parse(event.data));
    else onAgentAudio(event.data);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    session.ready = false;
    audio.player?.port.postMessage({ type: 'reset' });
    setText('agent-state', '-');
    setText('user-state', '-');
    setTextInput(false);
    record('socket_closed');
    if (!session.wanted) {
      setConnection('closed', 'session ended');
      return;
    }
    const delay = Math.min(RECONNECT_MAX_MS, 500 * 2 ** session.attempt++);
    banner(`Connection to the agent lost. Reconnecting in ${Math.ceil(delay / 1000)} s…`);
    setConnection('reconnecting', 'reconnecting…');
    session.timer = setTimeout(connect, delay);
  };
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN && session.ready) socket.send(JSON.stringify(message));
}

function onServerMessage(m) {
  record(m.type, m.type === 'metrics' ? { metrics: m.metrics } : pick(m));
  switch (m.type) {
    case 'ready':
      session.ready = true;
      session.attempt = 0;
      banner(null);
      setConnection('open', 'connected');
      $('title').textContent = m.title;
      document.title = `${m.title} · Voxwire playground`;
      systemLine('new session');
      setTextInput(true);
      // The microphone opens once the agent can hear it, so the first words are not lost.
      if (!audio.mic && !audio.micTried) {
        audio.micTried = true;
        startMicrophone().catch((error) =>
          notice('error', `The microphone could not start: ${error?.message}`),
        );
      }
      break;
    case 'notice':
      notice(m.level, m.message);
      break;
    case 'user_state':
      setState('user-state', m.state);
      break;
    case 'agent_state':
      setState('agent-state', m.state);
      break;
    case 'user_transcript':
      transcript.userLive(m.text, m.final);
      break;
    case 'agent_text':
      transcript.agentPiece(m.text);
      break;
    case 'agent_text_end':
      transcript.agentEnd();
      break;
    case 'message':
      if (m.role === 'user') transcript.userMessage(m.text);
      else transcript.agentMessage(m.text, m.interrupted);
      break;
    case 'tool_call':
      tools.call(m.callId, m.name, m.arguments);
      break;
    case 'tool_output':
      tools.output(m.callId, m.output, m.isError);
      break;
    case 'metrics':
      turns.metrics(m.metrics);
      break;
    case 'false_interruption':
      systemLine('false interruption: the agent resumed');
      break;
    case 'error':
      notice(m.recoverable ? 'warn' : 'error', `${m.source}: ${m.message}`);
      break;
    case 'segment_end':
      audio.player?.port.postMessage({ type: 'end', segment: m.segment });
      break;
    case 'clear':
      audio.player?.port.postMessage({ type: 'clear', segment: m.segment });
      break;
    case 'pause':
    case 'resume':
      audio.player?.port.postMessage({ type: m.type });
      break;
    case 'stats':
      $('audio-stats').textContent =
        `${audio.ctx.sampleRate} Hz · dropped: ${m.inputFramesDropped} mic frames, ${m.outputFramesDropped} agent frames`;
      break;
    case 'ended':
      systemLine(`session ended: ${m.reason}`);
      if (m.reconnect) {
        // The server is restarting (e.g. the agent file changed): come back at once.
        session.attempt = 0;
      } else {
        session.wanted = false;
        $('start').hidden = false;
        $('start').textContent = 'Start a new session';
        $('stop').hidden = true;
      }
      break;
  }
}

function pick(m) {
  const { type, ...rest } = m;
  return rest;
}

// ---------------------------------------------------------------- view

function setText(id, text) {
  $(id).textContent = text;
}

function setState(id, state) {
  const el = $(id);
  el.textContent = state;
  el.dataset.state = state;
}

function setConnection(state, text) {
  const el = $('connection');
  el.dataset.state = state;
  el.textContent = text;
}

function setTextInput(enabled) {
  $('text-input').disabled = !enabled;
  $('text-send').disabled = !enabled;
}

function banner(text) {
  const el = $('banner');
  el.hidden = !text;
  el.textContent = text || '';
}

function notice(level, message) {
  const list = $('notices');
  for (const li of list.children) if (li.textContent === message) return;
  const li = document.createElement('li');
  li.dataset.level = level;
  li.textContent = message;
  list.append(li);
  record('notice_shown', { level, message });
}

function line(className, text) {
  const li = document.createElement('li');
  li.className = className;
  li.textContent = text;
  const list = $('transcript');
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 20;
  list.append(li);
  if (atBottom) list.scrollTop = list.scrollHeight;
  return li;
}

function systemLine(text) {
  line('system', text);
}

const transcript = {
  user: null,
  agent: null,
  /** The agent line whose final message (what was heard) has not arrived yet. */
  agentAwaitingMessage: null,
  userLive(text, final) {
    if (!text) return;
    if (!this.user) this.user = line('user interim', text);
    if (final) {
      this.user.dataset.final = `${this.user.dataset.final ? `${this.user.dataset.final} ` : ''}${text}`;
      this.user.textContent = this.user.dataset.final;
    } else {
      this.user.textContent = `${this.user.dataset.final ? `${this.user.dataset.final} ` : ''}${text}`;
    }
  },
  userMessage(text) {
    const li = this.user || line('user', text);
    li.className = 'user';
    li.textContent = text;
    this.user = null;
  },
  agentPiece(text) {
    if (!this.agent) {
      this.agent = line('agent', '');
      this.agentAwaitingMessage = this.agent;
    }
    this.agent.textContent += text;
  },
  agentEnd() {
    this.agent = null;
  },
  agentMessage(text, interrupted) {
    const li = this.agentAwaitingMessage || line('agent', text);
    if (text || !li.textContent) li.textContent = text;
    if (interrupted) li.classList.add('interrupted');
    if (this.agent === li) this.agent = null;
    this.agentAwaitingMessage = null;
  },
};

const tools = {
  items: new Map(),
  call(callId, name, args) {
    const list = $('tools');
    list.querySelector('.empty')?.remove();
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = `${name}(${args})`;
    const result = document.createElement('div');
    result.textContent = 'running…';
    li.append(code, result);
    list.append(li);
    this.items.set(callId, result);
  },
  output(callId, output, isError) {
    const result = this.items.get(callId);
    if (!result) return;
    result.textContent = `→ ${output || '(no output)'}`;
    if (isError) result.className = 'error';
  },
};

const turns = {
  rows: new Map(),
  bySpeech: new Map(),
  pendingBySpeech: new Map(),
  lastTurn: null,
  unassignedHeard: null,
  row(turnId) {
    let row = this.rows.get(turnId);
    if (!row) {
      const tr = document.createElement('tr');
      tr.innerHTML = '<td></td><td></td><td></td><td></td><td></td><td></td>';
      tr.cells[0].textContent = String(this.rows.size + 1);
      $('latency').tBodies[0].append(tr);
      row = { tr, heard: false };
      this.rows.set(turnId, row);
    }
    return row;
  },
  set(row, column, value) {
    if (value === undefined || value === null) return;
    row.tr.cells[column].textContent = String(Math.round(value));
  },
  metrics(m) {
    if (m.type === 'eou') {
      const row = this.row(m.turnId);
      this.set(row, 1, m.endOfUtteranceDelayMs);
      this.lastTurn = m.turnId;
    } else if (m.type === 'turn') {
      this.bySpeech.set(m.speechId, m.turnId);
      const row = this.row(m.turnId);
      this.set(row, 4, m.endToEndLatencyMs);
      for (const pending of this.pendingBySpeech.get(m.speechId) || []) this.metrics(pending);
      this.pendingBySpeech.delete(m.speechId);
      if (this.unassignedHeard !== null && !row.heard) {
        this.set(row, 5, this.unassignedHeard);
        row.heard = true;
        this.unassignedHeard = null;
      }
    } else if (m.type === 'llm' || m.type === 'tts') {
      const turnId = this.bySpeech.get(m.speechId);
      if (!turnId) {
        const list = this.pendingBySpeech.get(m.speechId) || [];
        list.push(m);
        this.pendingBySpeech.set(m.speechId, list);
        return;
      }
      const row = this.row(turnId);
      // Only the first LLM step and the first TTS answer count toward the turn's latency.
      const column = m.type === 'llm' ? 2 : 3;
      if (row.tr.cells[column].textContent === '')
        this.set(row, column, m.type === 'llm' ? m.ttftMs : m.ttfbMs);
    }
  },
  heard(latencyMs) {
    const row = this.lastTurn ? this.rows.get(this.lastTurn) : undefined;
    if (row && !row.heard && this.bySpeechHas(this.lastTurn)) {
      this.set(row, 5, latencyMs);
      row.heard = true;
    } else {
      this.unassignedHeard = latencyMs;
    }
  },
  bySpeechHas(turnId) {
    for (const t of this.bySpeech.values()) if (t === turnId) return true;
    return false;
  },
};

// ---------------------------------------------------------------- controls

$('start').addEventListener('click', async () => {
  $('start').hidden = true;
  try {
    if (!audio.ctx) await startAudio();
    else if (!audio.mic && session.ready) await startMicrophone();
  } catch (error) {
    notice('error', `Audio could not start: ${error?.message}`);
    $('start').hidden = false;
    return;
  }
  $('stop').hidden = false;
  $('hint').hidden = true;
  session.wanted = true;
  session.attempt = 0;
  if (!socket) connect();
});

$('stop').addEventListener('click', () => {
  session.wanted = false;
  socket?.close(1000, 'ended by the user');
  $('stop').hidden = true;
  $('start').hidden = false;
  $('start').textContent = 'Start a new session';
});

$('text-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = $('text-input');
  const text = input.value.trim();
  if (!text) return;
  send({ type: 'user_text', text });
  input.value = '';
});
