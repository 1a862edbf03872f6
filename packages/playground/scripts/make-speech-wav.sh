#!/usr/bin/env bash
# Writes the fake microphone's recording for the browser test: silence, a question, a pause in which
# the agent answers, the user talking over the agent (a barge-in), then silence. 16-bit mono PCM.
#   make-speech-wav.sh OUT.wav [RATE=48000] [LEAD_S=1.0] [GAP_S=3.0]
# Needs espeak-ng and sox (Debian: apt-get install -y espeak-ng sox).
set -euo pipefail
out=$1
rate=${2:-48000}
lead=${3:-1.0}
gap=${4:-3.0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

speak() { # text -> file at the target rate (no dither: it would put noise in the silences)
  espeak-ng -v en-us -s 165 -w "$tmp/raw.wav" "$1"
  sox -D "$tmp/raw.wav" -r "$rate" -c 1 -b 16 "$2"
}
silence() { sox -n -r "$rate" -c 1 -b 16 "$2" trim 0 "$1"; }

speak "Hello there. Can you tell me what the weather will be like tomorrow?" "$tmp/question.wav"
speak "Wait, wait, stop please. I have another question for you." "$tmp/barge-in.wav"
silence "$lead" "$tmp/lead.wav"
silence "$gap" "$tmp/gap.wav"
silence 4 "$tmp/tail.wav"
sox "$tmp/lead.wav" "$tmp/question.wav" "$tmp/gap.wav" "$tmp/barge-in.wav" "$tmp/tail.wav" "$out"
