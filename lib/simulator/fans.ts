/**
 * The simulated fans of an on-sale (the on-sale simulator's behaviour; `npm run onsale`
 * parses the flags and runs it): each fan arrives, joins the waiting room (a pre-queue
 * before the on-sale, then in arrival order), polls the cacheable public status through the
 * simulated CDN like the queue page does, takes its turn (/queue/me → admission token),
 * holds 1–4 seats (best available, or map picks concentrated on the best seats), and pays
 * through the sandbox PSP with a mix of faults: abandon, decline, slow approval, webhooks
 * duplicated / dropped / delayed past the hold's expiry, a capture after the hold expired
 * whose webhook is lost, capture webhooks forged with a wrong secret, short captures (the
 * PSP takes less than the order's total: the app must refund it all), and capture webhooks
 * forged but signed with the deployment's own secret for a real open checkout (the app must
 * ask the PSP and issue nothing). Counters, the checkouts of the last two (checked against the
 * PSP's records at the end, ./psp-faults.ts) and the joins (for the fairness check) are kept
 * for the report.
 */
import { randomBytes } from "node:crypto";
import { SANDBOX_SIGNATURE_HEADER, signWebhookBody } from "@/lib/payments/sandbox/psp";
import type { FanJars, SessionCookies, SimClient, SimResponse } from "@/lib/simulator/client";
import type { TimedJoin } from "@/lib/simulator/report";
import { PollWheel } from "@/lib/simulator/waiting";
import type { FanQueueStatus, PublicQueueStatus } from "@/lib/waiting-room/room";
import { admissionCookieName } from "@/lib/waiting-room/token";

/** The fault mix: share of holds (0–1) that meet each fate; the rest pay normally. */
export interface FaultShares {
  abandon: number;
  decline: number;
  slow: number;
  duplicate: number;
  drop: number;
  lateWebhook: number;
  lateCapture: number;
  forged: number;
  /** The PSP captures less than the checkout's amount; the fan pays nothing more (its hold runs out). */
  shortCapture: number;
  /** A `payment.captured` for the fan's open checkout, signed with the deployment's own secret, made-up payment id; the fan never pays. */
  forgedSigned: number;
}

/** What the fans need to know about the run. */
export interface SaleSetup {
  client: SimClient;
  eventId: string;
  /** Epoch ms. */
  onSaleAt: number;
  /** The show's price levels, best first, and the seat ordinals of each. */
  levels: { id: string }[];
  ordinalsByLevel: number[][];
  fanIds: string[];
  /** What the app set in each fan's browser (queue ticket, admission). */
  jars: FanJars;
  /**
   * Each fan's signed session cookies (the session and its cache), as it arrived signed in: by
   * cookie name, or as a Cookie header's pairs (the crowd's FanBook: one string per request).
   */
  sessionOf: (i: number) => SessionCookies;
  /** The address each fan comes from (for the per-IP limits). */
  ipOf: (i: number) => string;
  faults: FaultShares;
  /** Simulated CDN edges, and the base status poll interval (s). */
  edges: number;
  pollSeconds: number;
  /**
   * Where an admitted fan's life goes on: absent, in this process (it shops); given, it is
   * handed over with its admission token (the crowd process of a large run hands admitted
   * fans to the shop process: scripts/lib/onsale-crowd.ts).
   */
  onAdmitted?: (i: number, token: string | null) => void;
}

/** What the fans did, counted for the report. */
export type SaleCounters = ReturnType<typeof newCounters>;

const newCounters = () => ({ joined: 0, joinFailed: 0, joinRetries: 0, retriesAnsweredWrong: 0, admitted: 0, held: 0, seatsHeld: 0, holdRefused: 0, gaveUp: 0, checkouts: 0, approved: 0, declined: 0, abandoned: 0, ticketedSeen: 0, meCalls: 0, statusReads: 0, lateCaptures: 0, forgedSent: 0, forgedAccepted: 0, shortCaptures: 0, forgedSignedSent: 0 });

/** The sale as the fans see it: start each fan's life, stop them all, read what they did. */
export interface Sale {
  /**
   * One fan's life from `arriveAt` (epoch ms) until it buys, gives up, or the sale stops
   * (or, with `onAdmitted`, until its turn). Never throws for the app's answers.
   * @param retries how many times the fan sends its join again after the first answer (impatient clicks, reloads), 0.5–3 s apart.
   */
  fanLife(i: number, arriveAt: number, retries: number): Promise<void>;
  /** An admitted fan's shopping, from its admission token (what `onAdmitted` handed over). */
  shopFor(i: number, token: string | null): Promise<void>;
  /** Stops the sale: every fan's pause ends now, and no fan starts anything new. */
  stop(): void;
  /**
   * The show sold out: fans waiting for their turn stop waiting (their page says sold out) and
   * send no more retries, but a fan whose first join has not been answered keeps asking until
   * the door answers (or {@link Sale.stop}): the door owes every fan who clicked an answer.
   */
  soldOut(): void;
  readonly counters: SaleCounters;
  /** Fans waiting for their turn on the poll wheel now. */
  readonly waiting: number;
  /** Fans whose first join has not been answered yet (started, waiting for a socket, or in flight). */
  readonly joining: number;
  readonly fates: Record<string, number>;
  /**
   * Orders whose fan the fault mix made a non-payer within the hold: it abandons, only forges
   * a webhook, gives up after a decline, or pays only after the hold expired (a late capture).
   * Their seats come back only when the hold runs out, so a seat such a fan held when the sale
   * stopped could not have been bought by anyone else within the sale (lib/simulator/report.ts,
   * {@link jobViolations}).
   */
  readonly unpaidByDesign: ReadonlySet<string>;
  /** Checkouts the PSP captured short (each must end refunded in full). */
  readonly shortCaptured: readonly string[];
  /** Orders (and their open checkouts) named by a forged but correctly signed capture webhook (none may be ticketed). */
  readonly forgedSigned: readonly { orderId: string; checkoutId: string }[];
  /** Pre-queue joins (when each answered) and later joins (sent, answered, position), for the fairness check. */
  readonly preJoins: { fanId: string; doneAt: number }[];
  readonly laterJoins: (TimedJoin & { fanId: string })[];
}

/**
 * The crowd's sale (scripts/lib/onsale-crowd.ts, and bench:crowd measuring it): fans who only
 * queue — join, retry, wait on the timing wheel, take their turn — and are handed over at
 * admission through `onAdmitted` (required here), so no price levels and no PSP faults.
 */
export function createCrowdSale(setup: Omit<SaleSetup, "levels" | "ordinalsByLevel" | "faults" | "onAdmitted"> & { onAdmitted: NonNullable<SaleSetup["onAdmitted"]> }): Sale {
  return createSale({ ...setup, levels: [], ordinalsByLevel: [], faults: { abandon: 0, decline: 0, slow: 0, duplicate: 0, drop: 0, lateWebhook: 0, lateCapture: 0, forged: 0, shortCapture: 0, forgedSigned: 0 } });
}

/** The simulated fans of one run. */
export function createSale(setup: SaleSetup): Sale {
  const { client, eventId, onSaleAt, levels, ordinalsByLevel, fanIds, jars, ipOf } = setup;
  /** Fan `i`'s cookies for a request: its jar, and its session cookies where the jar has none. */
  const cookiesOf = (i: number) => ({ jar: jars.get(i), session: setup.sessionOf(i) });
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const rand = (a: number, b: number) => a + Math.random() * (b - a);
  let stopped = false;
  let soldOut = false;
  /** Fans whose first join has not been answered yet. */
  let joining = 0;
  const counters = newCounters();
  const fates: Record<string, number> = {};
  const unpaidByDesign = new Set<string>();
  const shortCaptured: string[] = [];
  const forgedSigned: { orderId: string; checkoutId: string }[] = [];
  const preJoins: { fanId: string; doneAt: number }[] = [];
  const laterJoins: (TimedJoin & { fanId: string })[] = [];
  // A fan's pause ends early when the sale stops. Each pause registers its own wake-up (and
  // removes it when it ends): racing every pause against one shared "stopped" promise would
  // pile up millions of reactions on it over a 100,000-fan run.
  const sleepers = new Set<() => void>();
  const pause = (ms: number) =>
    stopped || ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            sleepers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, ms);
          sleepers.add(wake);
        });
  const stopResolve = () => {
    for (const wake of [...sleepers]) wake();
    wheel.stop();
  };
  // Waiting fans' polls of the public status, through their CDN edges (./waiting.ts).
  const wheel = new PollWheel({
    status: async (edge) => {
      const pub = await client.cachedGet<PublicQueueStatus>(`/api/events/${eventId}/queue`, edge, "queue status", { "x-forwarded-for": `192.0.2.${edge + 1}` });
      return pub.status === 200 ? pub.body : null;
    },
    baseMs: setup.pollSeconds * 1000,
    onReads: (n, fetched) => {
      counters.statusReads += n;
      client.cdnHits += n - fetched; // the looks that shared their edge's copy
    },
  });

  type QueueStatus = Pick<FanQueueStatus, "state" | "position" | "servingCounter" | "draw" | "admittedUntil" | "generation"> & { admissionToken?: string | null };
  type Availability = { available: number; bits: string };

  /** Share of paying fans who come back from the PSP's page (the rest close the tab after paying). */
  const RETURN_SHARE = 0.8;
  /** Share of fans who pay at once: their hold starts the checkout (`?pay=1`); the rest look at the order page first. */
  const PAY_AT_ONCE_SHARE = 0.8;

  /** A fan's fate at the PSP: "normal", or one of the fault mix's keys (abandon, decline, slow…). */
  type Fate = string;

  function pickFate(): Fate {
    const f = setup.faults;
    let x = Math.random();
    for (const [k, share] of Object.entries(f)) {
      if (x < share) return k;
      x -= share;
    }
    return "normal";
  }

  function pickQuantity(): number {
    const x = Math.random();
    return x < 0.15 ? 1 : x < 0.6 ? 2 : x < 0.75 ? 3 : 4;
  }

  /** Weighted towards the best (first) levels among those with `qty` free seats; -1 when none. */
  function pickLevel(freeByLevel: number[], qty: number): number {
    const weights = freeByLevel.map((free, i) => (free >= qty ? 1 / (i + 1) : 0));
    const total = weights.reduce((a, b) => a + b, 0);
    if (total === 0) return -1;
    let x = Math.random() * total;
    for (let i = 0; i < weights.length; i++) {
      if (x < weights[i]!) return i;
      x -= weights[i]!;
    }
    return weights.length - 1;
  }

  // Decoded once per availability response: the simulated CDN hands every fan behind an edge
  // the same body for a second, and counting 20,000 bits per fan would load the simulator.
  const decoded = new WeakMap<Availability, { bytes: Buffer; freeByLevel: number[] }>();
  function decodeFree(a: Availability): { bytes: Buffer; freeByLevel: number[] } {
    const known = decoded.get(a);
    if (known) return known;
    const bytes = Buffer.from(a.bits, "base64");
    const freeByLevel = ordinalsByLevel.map((ords) => ords.reduce((n, o) => n + ((bytes[o >> 3]! & (0x80 >> (o & 7))) !== 0 ? 1 : 0), 0));
    decoded.set(a, { bytes, freeByLevel });
    return { bytes, freeByLevel };
  }

  /** A map pick: `qty` free seats in one level, starting near the front (skewed to low ordinals = best sections). */
  function mapPick(bytes: Buffer, level: number, qty: number): number[] | null {
    const free = ordinalsByLevel[level]!.filter((o) => (bytes[o >> 3]! & (0x80 >> (o & 7))) !== 0);
    if (free.length < qty) return null;
    const start = Math.floor(Math.random() ** 2 * (free.length - qty + 1));
    return free.slice(start, start + qty);
  }

  async function me(i: number, lane: "door" | "shop" = "shop"): Promise<QueueStatus | null> {
    counters.meCalls++;
    const r = await client.request<QueueStatus>(`/api/events/${eventId}/queue/me`, { ...cookiesOf(i), instance: i, endpoint: "queue me", lane, headers: { "x-forwarded-for": ipOf(i) } });
    return r.status === 200 ? r.body : null;
  }

  /** The part of a status a waiting fan keeps (a million of them wait at once). */
  const compact = (b: QueueStatus): QueueStatus => ({ state: b.state, position: b.position, servingCounter: b.servingCounter, draw: b.draw, admittedUntil: b.admittedUntil, generation: b.generation, admissionToken: b.admissionToken });

  /** @param sentAt when the fan clicked (performance.now() ms): the first attempt may wait in the simulator for a socket. */
  async function join(i: number, sentAt: number): Promise<QueueStatus | null> {
    // FIFO is judged from the click: an attempt answered 503 may still have taken effect
    // (Redis ran the join, then the answer was lost to the outage), and the retry, being
    // idempotent, then returns that earlier place.
    for (let attempt = 0; attempt < 10; attempt++) {
      const r = await client.request<QueueStatus>(`/api/events/${eventId}/queue`, { method: "POST", ...cookiesOf(i), instance: i, endpoint: "queue join", headers: { "x-forwarded-for": ipOf(i) }, askedAt: attempt === 0 ? sentAt : undefined });
      const doneAt = performance.now();
      if (r.status === 200) {
        counters.joined++;
        if (r.body.state === "pre") preJoins.push({ fanId: fanIds[i]!, doneAt });
        else laterJoins.push({ fanId: fanIds[i]!, sentAt, doneAt, position: r.body.position });
        return compact(r.body);
      }
      if (stopped) return null;
      const retryAfter = Number(r.headers["retry-after"] ?? 0);
      await pause(retryAfter > 0 ? retryAfter * 1000 : Math.min(8_000, 250 * 2 ** attempt) * rand(0.5, 1.5));
    }
    counters.joinFailed++;
    return null;
  }

  /** A secret that is not the PSP's: what a forger signs with. */
  const FORGER_SECRET = randomBytes(32).toString("hex");

  async function pay(i: number, order: { orderId: string; holdExpiresAt: string; totalMinor: number; currency: string; checkoutUrl?: string }, fate: Fate): Promise<void> {
    fates[fate] = (fates[fate] ?? 0) + 1;
    if (fate === "abandon" || fate === "forged" || fate === "lateCapture" || fate === "shortCapture" || fate === "forgedSigned") unpaidByDesign.add(order.orderId);
    if (fate === "abandon") {
      counters.abandoned++;
      return;
    }
    const headers = { "x-forwarded-for": ipOf(i) };
    /** Retries an answer of trouble (503, no answer) after Retry-After, a few times, as the pages do. */
    const patiently = async <T>(send: () => Promise<SimResponse<T>>): Promise<SimResponse<T>> => {
      let r = await send();
      for (let k = 0; k < 10 && !stopped && (r.status === 503 || r.status === 0); k++) {
        await pause(Math.max(1, Number(r.headers["retry-after"] ?? 2)) * 1000 * rand(0.75, 1.25));
        r = await send();
      }
      return r;
    };
    const checkout = async () => {
      const r = await patiently(() => client.request<{ url: string }>(`/api/orders/${order.orderId}/checkout`, { method: "POST", ...cookiesOf(i), instance: i, endpoint: "checkout", lane: "shop", headers }));
      if (r.status !== 200) return null;
      counters.checkouts++;
      return /sbx_cs_[0-9a-z]+/.exec(r.body.url)?.[0] ?? null;
    };
    const act = async (id: string, action: "approve" | "decline") => {
      const r = await patiently(() => client.request<{ outcome: string }>(`/sandbox-psp/api/checkouts/${id}/${action}`, { method: "POST", instance: i, endpoint: `psp ${action}`, lane: "shop", timeoutMs: 120_000 }));
      if (r.body?.outcome === "captured") counters.approved++;
      if (r.body?.outcome === "declined") counters.declined++;
      return r.body?.outcome;
    };
    const setFaults = (id: string, knobs: Record<string, unknown>) =>
      client.request(`/sandbox-psp/api/faults?checkout=${id}`, { method: "PUT", body: knobs, instance: i, endpoint: "psp faults", lane: "shop" });

    // A fan who chose to pay at once held with `?pay=1`: the hold's answer carries the PSP's page.
    let id = /sbx_cs_[0-9a-z]+/.exec(order.checkoutUrl ?? "")?.[0] ?? null;
    if (id) counters.checkouts++;
    else {
      await pause(rand(500, 3_000)); // the fan looks at the order page
      id = await checkout();
    }
    if (!id) return;
    const untilExpiry = Date.parse(order.holdExpiresAt) - Date.now();
    if (fate === "slow") await setFaults(id, { slowApprovalMs: Math.round(rand(2_000, 10_000)) });
    if (fate === "duplicate") await setFaults(id, { duplicate: 2 });
    if (fate === "drop") await setFaults(id, { drop: true });
    if (fate === "lateWebhook") await setFaults(id, { webhookDelayMs: Math.max(1_000, untilExpiry + 15_000) });
    if (fate === "lateCapture") {
      // The PSP takes the money after the hold expired and the webhook is lost: only the
      // PSP's ledger shows it (reconciliation must re-claim the seats or refund).
      await setFaults(id, { captureAfterExpiry: true, drop: true });
      await sleep(Math.max(0, untilExpiry) + rand(3_000, 8_000));
      if (stopped) return;
      if ((await act(id, "approve")) === "captured") counters.lateCaptures++;
      return;
    }
    if (fate === "forgedSigned") {
      // A capture webhook for this real, open checkout with a made-up payment id, signed with
      // the deployment's own secret (a leaked secret, a replayed test event): the app must ask
      // the PSP, which has no such payment, and issue nothing.
      const body = JSON.stringify({
        id: `sbx_evt_forgedsigned${i}x${Date.now().toString(36)}`,
        object: "event",
        type: "payment.captured",
        created: Math.floor(Date.now() / 1000),
        data: { checkout: { id, object: "checkout", order_id: order.orderId, status: "captured", amount_minor: order.totalMinor, currency: order.currency, payment_id: `sbx_pay_madeup${i}x${Date.now().toString(36)}`, captured_at: new Date().toISOString() } },
      });
      const r = await client.request(`/api/payments/webhooks/sandbox`, {
        method: "POST",
        rawBody: body,
        instance: i,
        endpoint: "forged signed webhook",
        lane: "shop",
        headers: { "content-type": "application/json", [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(body) },
      });
      // Sent once the app answered at all (a 5xx leaves the PSP's retries to a real PSP; the check is the same).
      if (r.status !== 0) {
        counters.forgedSignedSent++;
        forgedSigned.push({ orderId: order.orderId, checkoutId: id });
      }
      return; // and never pays: the hold expires
    }
    if (fate === "forged") {
      // Someone posts a capture webhook for this checkout, signed with a secret that is not the PSP's.
      const body = JSON.stringify({
        id: `sbx_evt_forged${i}x${Date.now().toString(36)}`,
        object: "event",
        type: "payment.captured",
        created: Math.floor(Date.now() / 1000),
        data: { checkout: { id, object: "checkout", order_id: order.orderId, status: "captured", amount_minor: order.totalMinor, currency: order.currency, payment_id: `sbx_pay_forged${i}`, captured_at: new Date().toISOString() } },
      });
      counters.forgedSent++;
      const r = await client.request(`/api/payments/webhooks/sandbox`, {
        method: "POST",
        rawBody: body,
        instance: i,
        endpoint: "forged webhook",
        lane: "shop",
        headers: { "content-type": "application/json", [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(body, { secret: FORGER_SECRET }) },
      });
      if (r.status >= 200 && r.status < 300) counters.forgedAccepted++;
      return; // and never pays: the hold expires
    }
    await sleep(rand(1_000, 4_000)); // typing the card number
    if (fate === "shortCapture") {
      // The PSP takes 1.50 less than the order's total: money that cannot become these tickets.
      await setFaults(id, { shortCaptureMinor: 150 });
      if ((await act(id, "approve")) === "captured") {
        counters.shortCaptures++;
        shortCaptured.push(id);
      }
      return; // the fan pays nothing more: the hold expires
    }
    if (fate === "decline") {
      await act(id, "decline");
      if (Math.random() < 0.5) {
        unpaidByDesign.add(order.orderId);
        return; // gives up: the hold expires and the seats go back on sale
      }
      await sleep(rand(1_000, 3_000));
      id = await checkout(); // tries another card
      if (!id) return;
    }
    await act(id, "approve");
    // The PSP sends the fan back to the order page, which asks the PSP first (`?checkout=`,
    // racing a late or lost webhook), then follows the order. Some fans close the tab
    // instead, and so do all whose webhook comes after the hold's expiry (that fault is
    // about the sweeps): their orders are settled by the webhook or the sweeps alone.
    if (fate !== "lateWebhook" && Math.random() < RETURN_SHARE) {
      for (let k = 0; k < 4; k++) {
        const r = await client.request<{ status: string }>(`/api/orders/${order.orderId}${k === 0 ? `?checkout=${id}` : ""}`, { ...cookiesOf(i), instance: i, endpoint: k === 0 ? "order return" : "order status", lane: "shop", headers });
        if (r.body?.status === "ticketed") {
          counters.ticketedSeen++;
          return;
        }
        await sleep(2_000);
      }
    }
  }

  async function shop(i: number, token: string | null): Promise<void> {
    let qty = pickQuantity();
    // Most fans pay at once: their hold starts the checkout in the same request (`?pay=1`).
    const fate = pickFate();
    const payAtOnce = fate !== "abandon" && Math.random() < PAY_AT_ONCE_SHARE;
    let map = Math.random() < 0.5;
    const edge = i % setup.edges;
    const headers: Record<string, string> = { "x-forwarded-for": ipOf(i) };
    if (token) headers.authorization = `Bearer ${token}`;
    // Trouble on the server's side (503, no answer) does not use up the fan's patience: like the
    // real hold panel (components/trouble.ts), the fan keeps the turn and retries after Retry-After.
    let trouble = 0;
    const troubled = async (r: { status: number; headers: Record<string, unknown> }) => {
      if (r.status !== 503 && r.status !== 0) return false;
      trouble++;
      await pause(Math.max(1, Number(r.headers["retry-after"] ?? 2)) * 1000 * rand(0.75, 1.25));
      return trouble < 30;
    };
    // What the refusals told this fan (the body's `bestGroup`, as the panel's message says it):
    // the level to try again with fewer seats, and levels sold out a moment ago, which the fan
    // leaves alone for a few seconds even while a cached seat map still shows them free.
    let again = -1;
    const soldOutUntil = new Map<number, number>();
    for (let attempt = 0; attempt < 8 && !stopped; attempt++) {
      const av = await client.cachedGet<Availability>(`/api/events/${eventId}/availability`, edge, "availability");
      if (av.status !== 200) {
        if (await troubled(av)) attempt--;
        else await pause(1_000);
        continue;
      }
      const { bytes, freeByLevel } = decodeFree(av.body);
      const totalFree = freeByLevel.reduce((a, b) => a + b, 0);
      if (totalFree === 0) {
        await pause(rand(2_000, 4_000)); // "no seats right now": held seats may come back
        continue;
      }
      const seen = freeByLevel.map((free, l) => ((soldOutUntil.get(l) ?? 0) > Date.now() ? 0 : free));
      if (seen.every((free) => free === 0)) {
        await pause(rand(2_000, 4_000));
        continue;
      }
      qty = Math.min(qty, Math.max(...seen));
      const level = again >= 0 && seen[again]! >= qty ? again : pickLevel(seen, qty);
      again = -1;
      if (level < 0) continue;
      const ordinals = map ? mapPick(bytes, level, qty) : null;
      const body = ordinals ? { kind: "seats", ordinals } : { kind: "best", priceLevelId: levels[level]!.id, quantity: qty };
      const r = await client.request<{ orderId: string; seats: unknown[]; holdExpiresAt: string; totalMinor: number; currency: string; checkoutUrl?: string; error?: string; code?: string }>(`/api/events/${eventId}/holds${payAtOnce ? "?pay=1" : ""}`, {
        method: "POST",
        body,
        ...cookiesOf(i),
        instance: i,
        // Its own row when it also starts the checkout: the whole request is then two operations (scripts/onsale.ts holdLatency).
        endpoint: payAtOnce ? "hold + checkout" : "hold", lane: "shop",
        headers,
      });
      if (r.status === 201) {
        counters.held++;
        counters.seatsHeld += r.body.seats.length;
        return pay(i, r.body, fate);
      }
      if (await troubled(r)) {
        attempt--;
        continue;
      }
      counters.holdRefused++;
      if (r.status === 429) await pause(Number(r.headers["retry-after"] ?? 1) * 1000);
      else if (r.status === 409) {
        map = false; // someone was faster: let the server pick
        if (r.body?.code === "not_together" || r.body?.code === "not_enough") {
          const best = Number((r.body as { bestGroup?: unknown }).bestGroup);
          if (best > 0) [qty, again] = [Math.min(qty - 1, best), level]; // "only 2 left": take those
          else if (best === 0) soldOutUntil.set(level, Date.now() + 5_000);
          else qty = Math.max(1, qty - 1);
          qty = Math.max(1, qty);
        }
        await pause(rand(300, 1_200));
      } else if (r.status === 401 || r.status === 403) return;
      else await pause(1_000);
    }
    counters.gaveUp++;
    await client.request(`/api/events/${eventId}/queue/me`, { method: "DELETE", ...cookiesOf(i), instance: i, endpoint: "queue leave", lane: "shop", headers: { "x-forwarded-for": ipOf(i) } });
  }

  async function fanLife(i: number, arriveAt: number, retries: number): Promise<void> {
    joining++; // counted at once (before any await), so a launcher sees it within its own loop
    let s: QueueStatus | null;
    try {
      await pause(arriveAt - Date.now());
      if (stopped) return;
      // A fan launched after its arrival (the crowd holds arrivals back while the door's backlog
      // is long) clicked at its arrival: that is when its join counts as sent.
      s = await join(i, performance.now() - Math.max(0, Date.now() - arriveAt));
    } finally {
      joining--;
    }
    if (!s || soldOut) return;
    // The seed's burst: fans click again and reload. Each retry carries what the first answer set
    // (the queue ticket), must name the same place, and costs the door no Redis write.
    for (let k = 0; k < retries && !stopped && !soldOut; k++) {
      await pause(rand(500, 3_000));
      if (stopped || soldOut) return;
      const r = await client.request<QueueStatus>(`/api/events/${eventId}/queue`, { method: "POST", ...cookiesOf(i), instance: i, endpoint: "queue join (retry)", headers: { "x-forwarded-for": ipOf(i) } });
      if (r.status !== 200) continue;
      counters.joinRetries++;
      const same = r.body.state === "pre" ? s.state === "pre" && r.body.draw === s.draw : r.body.position === s.position || s.state === "pre";
      if (!same) counters.retriesAnsweredWrong++;
      s = compact(r.body);
    }
    // The fan waits on its queue page, looking at the public status (a pre-queue fan from the
    // on-sale: its draw against servingDraw, lib/waiting-room/draw.ts), and asks for its own
    // place when the turn is near — on the shop's connections, not behind the door's backlog of joins.
    const edge = i % setup.edges;
    while (!stopped && !soldOut && s.state !== "admitted") {
      if (s.state === "expired" || s.state === "none") return;
      if (!(await wheel.untilTurnNear(s, edge, { notBefore: s.state === "pre" ? onSaleAt : undefined }))) return;
      const now = await me(i);
      if (now) s = compact(now);
    }
    if (stopped || soldOut) return;
    counters.admitted++;
    const token = s.admissionToken ?? jars.get(i).get(admissionCookieName(eventId)) ?? null;
    if (setup.onAdmitted) setup.onAdmitted(i, token);
    else await shop(i, token);
  }

  return {
    fanLife,
    shopFor: (i, token) => shop(i, token),
    stop: () => {
      stopped = true;
      stopResolve();
    },
    soldOut: () => {
      soldOut = true;
      wheel.stop();
    },
    counters,
    get waiting() {
      return wheel.waiting;
    },
    get joining() {
      return joining;
    },
    fates,
    unpaidByDesign,
    shortCaptured,
    forgedSigned,
    preJoins,
    laterJoins,
  };
}
