/**
 * Waiting fans on a timing wheel: what each fan's queue page does while it waits — look at
 * the public status (through its CDN edge) every few seconds, less often while the turn is
 * far away (lib/waiting-room/draw.ts `pollDelayMs`), and ask for its own place once the turn
 * is near — without a timer, a promise and a CDN lookup per poll. A million waiting fans poll
 * ~30,000 times a second; one pending timer and one resolved promise each cost the simulator
 * more than the server spends on the CDN's one origin read per edge per second. Here a poll
 * is an entry moved from one 100-ms bucket to another, judged against the status its edge
 * fetched for that tick (one `cachedGet` per edge per tick, as every fan behind an edge
 * shares the edge's copy anyway). As the page does, a fan whose queue generation the public
 * status no longer names (Redis lost the queue) asks for its own place, which re-seats it from
 * its queue ticket (docs/adr/0028); a re-seated place (negative) asks at every look.
 */
import { estimatedPreQueuePosition, pollDelayMs, preQueueTurnNear } from "@/lib/waiting-room/draw";
import { rateInForce } from "@/lib/waiting-room/rate";
import type { FanQueueStatus, PublicQueueStatus } from "@/lib/waiting-room/room";

/** The part of a fan's own status the wheel judges. */
export type WaitingStatus = Pick<FanQueueStatus, "state" | "position" | "draw" | "generation">;

/** Whether a fan with status `s` should now ask for its own place, given the public status. */
export function turnNear(s: WaitingStatus, pub: PublicQueueStatus): boolean {
  if (s.generation !== pub.generation) return true;
  return s.state === "pre" ? preQueueTurnNear(s.draw, pub) : pub.servingCounter >= s.position;
}

/** The pause (ms, before jitter) until the next look of a fan whose turn is not near yet. */
export function nextPollMs(s: WaitingStatus, pub: PublicQueueStatus, baseMs: number): number {
  const mine = s.state === "pre" && s.draw !== null ? estimatedPreQueuePosition(s.draw, pub.preQueueSize) : s.position;
  return pollDelayMs(mine - pub.servingCounter - 1, pub.paused ? 0 : rateInForce(pub).rate, baseMs);
}

interface Entry {
  s: WaitingStatus;
  edge: number;
  /** Epoch ms of the fan's next look. */
  due: number;
  resolve: (near: boolean) => void;
}

/** What the wheel needs from its surroundings. */
export interface PollWheelOptions {
  /** The public status as edge `edge` serves it now (a CDN read); null when the read failed. */
  status: (edge: number) => Promise<PublicQueueStatus | null>;
  /** The fans' base poll interval (ms), as the queue page's. */
  baseMs: number;
  /** Counts fans' status reads (for the report): `n` looks in one bucket, of which `fetched` were `status` calls (the rest shared their edge's copy). */
  onReads?: (n: number, fetched: number) => void;
  /** Milliseconds per bucket (100). */
  tickMs?: number;
  now?: () => number;
  random?: () => number;
}

/**
 * The timing wheel of waiting fans. {@link PollWheel.untilTurnNear} resolves `true` at the
 * first look (one poll interval after the call, jittered ±25 % as the page does) that finds
 * the fan's turn near, `false` when the wheel stops. Never rejects.
 */
export class PollWheel {
  private readonly slots: Entry[][];
  private readonly tickMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private cursor: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  private busy = false;
  private size = 0;

  constructor(private readonly opts: PollWheelOptions) {
    this.tickMs = opts.tickMs ?? 100;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    // Enough slots for the longest pause (30 s + 25 %); a later entry is carried round again.
    this.slots = Array.from({ length: 512 }, () => []);
    this.cursor = Math.floor(this.now() / this.tickMs);
  }

  /** Fans waiting on the wheel now. */
  get waiting(): number {
    return this.size;
  }

  /**
   * Waits until fan status `s`'s turn is near, looking through edge `edge`.
   * @param notBefore epoch ms before which the fan does not look (a pre-queue fan waits for the on-sale).
   * @param firstPollMs the pause before the first look (ms; the base interval when omitted).
   */
  untilTurnNear(s: WaitingStatus, edge: number, opts: { notBefore?: number; firstPollMs?: number } = {}): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.start();
    return new Promise((resolve) => {
      const from = Math.max(this.now(), opts.notBefore ?? 0);
      this.put({ s, edge, due: from + this.jitter(opts.firstPollMs ?? this.opts.baseMs), resolve });
    });
  }

  /** Ends every wait (`false`) and the wheel's timer. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const slot of this.slots) {
      for (const e of slot) e.resolve(false);
      slot.length = 0;
    }
    this.size = 0;
  }

  private jitter(ms: number): number {
    return ms * (0.75 + 0.5 * this.random());
  }

  private put(e: Entry): void {
    const tick = Math.max(this.cursor, Math.min(this.cursor + this.slots.length - 1, Math.floor(e.due / this.tickMs)));
    this.slots[tick % this.slots.length]!.push(e);
    this.size++;
  }

  private start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.turn(), this.tickMs);
    this.timer.unref?.();
  }

  /** Processes every bucket up to now (a late timer catches up). */
  private async turn(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const nowTick = Math.floor(this.now() / this.tickMs);
      while (this.cursor <= nowTick && !this.stopped) {
        const slot = this.slots[this.cursor % this.slots.length]!;
        this.slots[this.cursor % this.slots.length] = [];
        this.size -= slot.length;
        this.cursor++;
        if (slot.length > 0) await this.look(slot);
      }
    } finally {
      this.busy = false;
    }
  }

  /** One bucket's fans look at the status of their edges. */
  private async look(slot: Entry[]): Promise<void> {
    const now = this.now();
    const pubs = new Map<number, PublicQueueStatus | null>();
    let reads = 0;
    for (let k = 0; k < slot.length; k++) {
      const e = slot[k]!;
      if (e.due > now + this.tickMs) {
        this.put(e); // beyond the wheel's reach when put there: carried round
        continue;
      }
      if (!pubs.has(e.edge)) pubs.set(e.edge, await this.opts.status(e.edge).catch(() => null));
      if (this.stopped) {
        for (; k < slot.length; k++) slot[k]!.resolve(false);
        return;
      }
      const pub = pubs.get(e.edge)!;
      reads++;
      if (pub && turnNear(e.s, pub)) {
        e.resolve(true);
        continue;
      }
      e.due = now + this.jitter(pub ? nextPollMs(e.s, pub, this.opts.baseMs) : this.opts.baseMs);
      this.put(e);
    }
    this.opts.onReads?.(reads, pubs.size);
  }
}
