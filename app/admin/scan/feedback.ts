/**
 * The door's verdict felt and heard, where the browser allows (browser only): a vibration
 * (`navigator.vibrate`: one short pulse lets in, two long ones refuse) and a short Web Audio
 * beep (a rising two-note chirp lets in, a low buzz refuses, one mid note asks to look again).
 * Browsers start audio only after a tap, so the page calls {@link prepareSound} from its buttons.
 */
import type { VerdictTone } from "@/lib/tickets/verdict";

let audio: AudioContext | null = null;

/** Opens (or resumes) the audio output; call from a tap. Silently does nothing where audio is unavailable. */
export function prepareSound(): void {
  try {
    const Ctor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctor) return;
    audio ??= new Ctor();
    if (audio.state === "suspended") void audio.resume().catch(() => undefined);
  } catch {
    audio = null;
  }
}

/** Vibration patterns (ms on, off, on…). */
const BUZZ: Record<VerdictTone, number | number[]> = { ok: 120, bad: [250, 100, 250], warn: [80, 80, 80] };
/** Notes: [frequency Hz, start s, length s]; oscillator type per tone. */
const NOTES: Record<VerdictTone, { type: OscillatorType; notes: [number, number, number][] }> = {
  ok: { type: "sine", notes: [[880, 0, 0.09], [1320, 0.1, 0.14]] },
  bad: { type: "square", notes: [[185, 0, 0.4]] },
  warn: { type: "triangle", notes: [[520, 0, 0.18]] },
};

/** Vibrates and beeps for a verdict of `tone`. Never throws. */
export function signal(tone: VerdictTone): void {
  try {
    navigator.vibrate?.(BUZZ[tone]);
  } catch {
    // No vibration motor, or not allowed: the screen still says it.
  }
  if (!audio) return;
  try {
    const { type, notes } = NOTES[tone];
    const t0 = audio.currentTime + 0.01;
    for (const [frequency, start, length] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = type;
      osc.frequency.value = frequency;
      // A short attack and release: no click at either end.
      gain.gain.setValueAtTime(0, t0 + start);
      gain.gain.linearRampToValueAtTime(type === "square" ? 0.12 : 0.3, t0 + start + 0.01);
      gain.gain.setValueAtTime(type === "square" ? 0.12 : 0.3, t0 + start + length - 0.03);
      gain.gain.linearRampToValueAtTime(0, t0 + start + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + start);
      osc.stop(t0 + start + length + 0.01);
    }
  } catch {
    // Audio failed: the screen and the vibration say it.
  }
}
