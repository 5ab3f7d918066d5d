/**
 * The sandbox PSP itself: what an outside payment provider would run on its own servers.
 *
 * It keeps its own records (Postgres schema `sandbox_psp`, db/sandbox-psp-schema.ts),
 * never touches the app's tables, and reaches the app only through
 *   - redirects from its hosted pay page (/sandbox-psp/checkout/<id>) to the return URL, and
 *   - asynchronous webhooks, HMAC-SHA256 signed, POSTed to
 *     `${APP_URL}/api/payments/webhooks/sandbox` and retried with backoff.
 * The app's side of the boundary is {@link ../provider.ts SandboxProvider}.
 *
 * Lifecycle of a checkout (`sbx_cs_…`):
 *   open ─approve→ captured ─refund→ refunded
 *   open ─decline→ declined          open ─expire / sweep→ expired        open ─cancel→ cancelled
 * Every transition is a guarded update under a row lock and enqueues one webhook event
 * (`payment.captured`, `payment.declined`, `checkout.expired`, `payment.refunded`),
 * shaped by the fault knobs (lib/payments/sandbox/faults.ts).
 *
 * Webhook signature header (Stripe-like):
 *   `x-sandbox-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<rawBody>">`
 * keyed with {@link SANDBOX_WEBHOOK_SECRET}.
 *
 * Money is an integer number of minor units (cents); durations are milliseconds.
 */
import { createHmac, randomBytes } from "node:crypto";
import { and, asc, eq, getTableColumns, inArray, isNull, lt, sql as dsql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import {
  sandboxCheckouts,
  sandboxRefunds,
  sandboxSettings,
  sandboxWebhookDeliveries,
  type SandboxCheckoutStatus,
  type SandboxEventType,
} from "@/db/sandbox-psp-schema";
import { databaseNow, sqlNow } from "@/lib/clock";
import { db, sql, type Db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError, type ErrorKind } from "@/lib/errors";
import {
  describeFaultsError,
  mergeFaults,
  readFaultOverrides,
  sandboxFaultOverridesSchema,
  type SandboxFaultOverrides,
  type SandboxFaults,
} from "./faults";

// ─── Constants, ids, errors ───────────────────────────────────────────────────

/** The webhook signature header name. */
export const SANDBOX_SIGNATURE_HEADER = "x-sandbox-signature";
/** A delivery is given up after this many attempts (its last error says so). */
const MAX_WEBHOOK_ATTEMPTS = 20;
/** Cap of the retry backoff (ms). */
const MAX_WEBHOOK_BACKOFF_MS = 60_000;
/** A claimed delivery is invisible to other dispatchers this long (ms), so a crash mid-delivery only delays it. */
const CLAIM_LEASE_MS = 30_000;
/** With the `reorder` knob, pending earlier events are pushed this far (ms) behind the newer one, per step. */
const REORDER_GAP_MS = 100;
/** Timeout of one default webhook POST (ms). */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * The secret the sandbox PSP signs webhooks with (and SandboxProvider verifies with):
 * `SANDBOX_PSP_WEBHOOK_SECRET` from the validated environment, which has a built-in value
 * in local development only (lib/env.ts; `npm start` writes a random one into .env.local).
 */
export const SANDBOX_WEBHOOK_SECRET = (): string => env().SANDBOX_PSP_WEBHOOK_SECRET;

/** Where webhooks go by default: `${APP_URL}/api/payments/webhooks/sandbox`. */
function sandboxWebhookUrl(): string {
  return `${env().APP_URL.replace(/\/+$/, "")}/api/payments/webhooks/sandbox`;
}

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
type SandboxIdPrefix = "sbx_cs" | "sbx_pay" | "sbx_evt" | "sbx_re";

/** `${prefix}_` + 20 random base-32 characters (100 bits). */
function sandboxId(prefix: SandboxIdPrefix): string {
  let out = "";
  for (const byte of randomBytes(20)) out += ID_ALPHABET[byte & 31];
  return `${prefix}_${out}`;
}

/** A checkout id as it appears in URLs (`sbx_cs_` + lower-case base-32). */
export const sandboxCheckoutIdSchema = z
  .string()
  .regex(/^sbx_cs_[0-9a-z]{1,40}$/, "That is not a sandbox checkout id (they look like sbx_cs_…)");

/** Why the sandbox PSP refused a request. */
export type SandboxPspErrorCode = "not_found" | "invalid_request" | "idempotency_conflict" | "not_refundable";

const SANDBOX_ERROR_KIND: Record<SandboxPspErrorCode, ErrorKind> = { not_found: "not_found", invalid_request: "bad_request", idempotency_conflict: "conflict", not_refundable: "conflict" };

/** Raised when the sandbox PSP refuses a request (unknown id, bad input, idempotency-key reuse, nothing to refund). */
export class SandboxPspError extends AppError {
  declare readonly code: SandboxPspErrorCode;
  constructor(code: SandboxPspErrorCode, message: string) {
    super(SANDBOX_ERROR_KIND[code], code, message);
  }
}

// ─── Records and payloads ─────────────────────────────────────────────────────

/** One checkout row as the PSP stores it. */
export type SandboxCheckout = typeof sandboxCheckouts.$inferSelect;
/** One webhook delivery row. */
export type SandboxWebhookDelivery = typeof sandboxWebhookDeliveries.$inferSelect;

/** The checkout as it appears inside a webhook body (snake_case, instants as ISO strings). */
export interface SandboxCheckoutResource {
  id: string;
  object: "checkout";
  order_id: string;
  status: SandboxCheckoutStatus;
  /** Minor units. */
  amount_minor: number;
  currency: string;
  description: string;
  payment_id: string | null;
  captured_at: string | null;
  refund_id: string | null;
  refunded_at: string | null;
  expires_at: string;
}

/** The JSON body of every sandbox webhook. `data.checkout` is the checkout as it was when the event happened. */
export interface SandboxWebhookPayload {
  /** `sbx_evt_…`; duplicates of one event carry the same id. */
  id: string;
  object: "event";
  type: SandboxEventType;
  /** Unix seconds of the PSP-side event. */
  created: number;
  data: { checkout: SandboxCheckoutResource };
}

/** The webhook-body view of a checkout. */
function checkoutResource(c: SandboxCheckout): SandboxCheckoutResource {
  return {
    id: c.id,
    object: "checkout",
    order_id: c.orderId,
    status: c.status,
    amount_minor: c.amountMinor,
    currency: c.currency,
    description: c.description,
    payment_id: c.paymentId,
    captured_at: c.capturedAt?.toISOString() ?? null,
    refund_id: c.refundId,
    refunded_at: c.refundedAt?.toISOString() ?? null,
    expires_at: c.expiresAt.toISOString(),
  };
}

/** `returnUrl` with `?checkout=<id>` added (existing query parameters kept): where the pay page sends the fan back. */
export function returnUrlFor(c: Pick<SandboxCheckout, "id" | "returnUrl">): string {
  const url = new URL(c.returnUrl);
  url.searchParams.set("checkout", c.id);
  return url.toString();
}

/** True when an open checkout is past its `expires_at` at `now`. */
export function isPastExpiry(c: Pick<SandboxCheckout, "expiresAt">, now: Date = new Date()): boolean {
  return now.getTime() > c.expiresAt.getTime();
}

// ─── Signing ──────────────────────────────────────────────────────────────────

/** Hex HMAC-SHA256 of `"<t>.<rawBody>"` — the `v1` value of the signature header. */
export function computeSandboxSignature(rawBody: string, timestampSeconds: number, secret: string = SANDBOX_WEBHOOK_SECRET()): string {
  return createHmac("sha256", secret).update(`${timestampSeconds}.${rawBody}`, "utf8").digest("hex");
}

/**
 * The signature header value for a body: `t=<unix seconds>,v1=<hex hmac>`.
 * @param opts.timestampSeconds defaults to the current time (tests pass an old one).
 * @param opts.secret defaults to {@link SANDBOX_WEBHOOK_SECRET}.
 */
export function signWebhookBody(rawBody: string, opts: { timestampSeconds?: number; secret?: string } = {}): string {
  const t = opts.timestampSeconds ?? Math.floor(Date.now() / 1000);
  return `t=${t},v1=${computeSandboxSignature(rawBody, t, opts.secret ?? SANDBOX_WEBHOOK_SECRET())}`;
}

// ─── Fault knobs ──────────────────────────────────────────────────────────────

/** The global knobs: what was set (`overrides`) and what applies with defaults filled in (`effective`). */
export interface SandboxGlobalFaults {
  overrides: SandboxFaultOverrides;
  effective: SandboxFaults;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type Executor = Db | Tx;

async function readGlobalOverrides(ex: Executor): Promise<SandboxFaultOverrides> {
  const [row] = await ex.select({ faults: sandboxSettings.faults }).from(sandboxSettings).where(eq(sandboxSettings.id, 1));
  return readFaultOverrides(row?.faults);
}

/**
 * The global knobs as one more column of a checkout's select (a scalar subquery on the single
 * settings row): the PSP actions of an on-sale read their checkout and the knobs in one
 * statement, not two (BENCHMARKS.md, "Where Postgres waits during an on-sale").
 */
const globalFaultsField = dsql`(select ${sandboxSettings.faults} from ${sandboxSettings} where ${sandboxSettings.id} = 1)`.mapWith(sandboxSettings.faults);

/** One checkout by id with the global knobs, optionally locked `FOR UPDATE`; null when there is none. */
async function checkoutWithGlobals(ex: Executor, checkoutId: string, lock: boolean): Promise<{ checkout: SandboxCheckout; globalOverrides: SandboxFaultOverrides } | null> {
  const query = ex.select({ checkout: sandboxCheckouts, globals: globalFaultsField }).from(sandboxCheckouts).where(eq(sandboxCheckouts.id, checkoutId));
  const [row] = await (lock ? query.for("update") : query);
  return row ? { checkout: row.checkout, globalOverrides: readFaultOverrides(row.globals) } : null;
}

function parseOverrides(input: unknown): SandboxFaultOverrides {
  const parsed = sandboxFaultOverridesSchema.safeParse(input);
  if (!parsed.success) throw new SandboxPspError("invalid_request", describeFaultsError(parsed.error));
  return parsed.data;
}

/** The global fault knobs (sandbox_psp.settings). */
export async function getGlobalFaults(): Promise<SandboxGlobalFaults> {
  const overrides = await readGlobalOverrides(db());
  return { overrides, effective: mergeFaults(overrides) };
}

/**
 * Replaces the global fault knobs (knobs left out fall back to their defaults; `{}` resets
 * everything). Applies to every later PSP action of every checkout, unless the checkout
 * overrides a knob.
 * @throws {SandboxPspError} `invalid_request` when a knob is unknown or out of range.
 */
export async function setGlobalFaults(input: SandboxFaultOverrides): Promise<SandboxGlobalFaults> {
  const overrides = parseOverrides(input);
  await db()
    .insert(sandboxSettings)
    .values({ id: 1, faults: overrides, updatedAt: new Date() })
    .onConflictDoUpdate({ target: sandboxSettings.id, set: { faults: overrides, updatedAt: new Date() } });
  return { overrides, effective: mergeFaults(overrides) };
}

/**
 * Replaces one checkout's fault-knob overrides (they win over the global knobs).
 * @returns the knobs that now apply to that checkout.
 * @throws {SandboxPspError} `not_found` for an unknown checkout, `invalid_request` for bad knobs.
 */
export async function setCheckoutFaults(checkoutId: string, input: SandboxFaultOverrides): Promise<SandboxFaults> {
  const overrides = parseOverrides(input);
  const updated = await db()
    .update(sandboxCheckouts)
    .set({ faults: overrides, updatedAt: new Date() })
    .where(eq(sandboxCheckouts.id, checkoutId))
    .returning({ id: sandboxCheckouts.id });
  if (updated.length === 0) throw notFound(checkoutId);
  return mergeFaults(await readGlobalOverrides(db()), overrides);
}

/**
 * The knobs that apply to one checkout right now (defaults ← global ← checkout).
 * @throws {SandboxPspError} `not_found`
 */
export async function effectiveFaults(checkoutId: string): Promise<SandboxFaults> {
  const found = await checkoutWithGlobals(db(), checkoutId, false);
  if (!found) throw notFound(checkoutId);
  return mergeFaults(found.globalOverrides, readFaultOverrides(found.checkout.faults));
}

// ─── Checkouts ────────────────────────────────────────────────────────────────

const createCheckoutSchema = z.object({
  orderId: z.string().min(1, "orderId is required").max(200),
  amountMinor: z.number().int("amountMinor must be an integer number of minor units").positive("amountMinor must be positive").max(2_000_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, "currency must be an upper-case ISO 4217 code, e.g. EUR"),
  description: z.string().min(1, "description is required").max(500),
  expiresAt: z.date({ error: "expiresAt must be a valid Date" }),
  returnUrl: z.url({ protocol: /^https?$/, error: "returnUrl must be an http(s) URL" }),
  idempotencyKey: z.string().min(1, "idempotencyKey is required").max(255),
  faults: sandboxFaultOverridesSchema.optional(),
});

/** What the app sends to open a checkout. Amounts in minor units. */
export interface SandboxCreateCheckoutInput {
  orderId: string;
  amountMinor: number;
  currency: string;
  description: string;
  /** After this instant the checkout refuses payment. May be in the past (tests). */
  expiresAt: Date;
  returnUrl: string;
  /** The same key returns the same checkout. */
  idempotencyKey: string;
  /** Optional per-checkout fault-knob overrides. */
  faults?: SandboxFaultOverrides;
}

function notFound(checkoutId: string): SandboxPspError {
  return new SandboxPspError("not_found", `No sandbox checkout ${checkoutId}`);
}

/**
 * Opens a checkout (status `open`), idempotent by `idempotencyKey`: the same key returns
 * the existing checkout, even under concurrent calls.
 * @throws {SandboxPspError} `invalid_request` for malformed input; `idempotency_conflict`
 *   when the key was already used for a different order, amount or currency.
 */
export async function createCheckout(input: SandboxCreateCheckoutInput): Promise<SandboxCheckout> {
  const parsed = createCheckoutSchema.safeParse(input);
  if (!parsed.success) {
    throw new SandboxPspError("invalid_request", parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  }
  const v = parsed.data;
  const [created] = await db()
    .insert(sandboxCheckouts)
    .values({
      id: sandboxId("sbx_cs"),
      orderId: v.orderId,
      amountMinor: v.amountMinor,
      currency: v.currency,
      description: v.description,
      returnUrl: v.returnUrl,
      expiresAt: v.expiresAt,
      idempotencyKey: v.idempotencyKey,
      faults: v.faults ?? {},
    })
    .onConflictDoNothing({ target: sandboxCheckouts.idempotencyKey })
    .returning();
  if (created) return created;
  const [existing] = await db().select().from(sandboxCheckouts).where(eq(sandboxCheckouts.idempotencyKey, v.idempotencyKey));
  if (!existing) throw new SandboxPspError("invalid_request", "Idempotency key vanished while creating the checkout; try again");
  if (existing.orderId !== v.orderId || existing.amountMinor !== v.amountMinor || existing.currency !== v.currency) {
    throw new SandboxPspError(
      "idempotency_conflict",
      `Idempotency key ${v.idempotencyKey} was already used for a different checkout (order ${existing.orderId}, ${existing.amountMinor} ${existing.currency})`,
    );
  }
  return existing;
}

/** The checkout, or null when there is none with that id. */
export async function findCheckout(checkoutId: string): Promise<SandboxCheckout | null> {
  const [row] = await db().select().from(sandboxCheckouts).where(eq(sandboxCheckouts.id, checkoutId));
  return row ?? null;
}

/**
 * The PSP's current record of a checkout (the active-query API). A pure read: an open
 * checkout past its expiry stays `open` until the sweep / an approval expires it.
 * @throws {SandboxPspError} `not_found`
 */
export async function retrieve(checkoutId: string): Promise<SandboxCheckout> {
  const row = await findCheckout(checkoutId);
  if (!row) throw notFound(checkoutId);
  return row;
}

/** What a PSP action did: the resulting record and whether (and how) it changed. */
export interface SandboxActionResult {
  /** `unchanged`: the checkout was already closed (or paid), nothing happened and no webhook was sent. */
  outcome: "captured" | "declined" | "expired" | "cancelled" | "refunded" | "unchanged";
  checkout: SandboxCheckout;
}

async function lockCheckout(tx: Tx, checkoutId: string): Promise<SandboxCheckout> {
  const [row] = await tx.select().from(sandboxCheckouts).where(eq(sandboxCheckouts.id, checkoutId)).for("update");
  if (!row) throw notFound(checkoutId);
  return row;
}

/** {@link lockCheckout} with the global knobs read in the same statement. @throws {SandboxPspError} `not_found` */
async function lockCheckoutWithGlobals(tx: Tx, checkoutId: string): Promise<{ checkout: SandboxCheckout; globalOverrides: SandboxFaultOverrides }> {
  const found = await checkoutWithGlobals(tx, checkoutId, true);
  if (!found) throw notFound(checkoutId);
  return found;
}

/** Guarded transition: `UPDATE … WHERE id AND status = expected`, then the webhook event, in the caller's transaction. */
async function transition(
  tx: Tx,
  from: SandboxCheckout,
  set: Partial<typeof sandboxCheckouts.$inferInsert> & { status: SandboxCheckoutStatus },
  event: SandboxEventType,
  faults: SandboxFaults,
  at: Date,
): Promise<SandboxCheckout> {
  const [updated] = await tx
    .update(sandboxCheckouts)
    .set({ ...set, updatedAt: at })
    .where(and(eq(sandboxCheckouts.id, from.id), eq(sandboxCheckouts.status, from.status)))
    .returning();
  if (!updated) throw new Error(`Sandbox checkout ${from.id} changed under its row lock (expected ${from.status})`);
  await enqueueEvent(tx, updated, event, faults, at);
  return updated;
}

function expireOrCancel(tx: Tx, c: SandboxCheckout, status: "expired" | "cancelled", faults: SandboxFaults, at: Date) {
  return transition(tx, c, { status }, "checkout.expired", faults, at);
}

/** Captures the checkout's amount, or less with the `shortCaptureMinor` knob (the record then holds what was taken). */
function capture(tx: Tx, c: SandboxCheckout, faults: SandboxFaults, at: Date) {
  const amountMinor = faults.shortCaptureMinor > 0 ? Math.max(1, c.amountMinor - faults.shortCaptureMinor) : c.amountMinor;
  return transition(tx, c, { status: "captured", paymentId: sandboxId("sbx_pay"), capturedAt: at, amountMinor }, "payment.captured", faults, at);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The fan pressed "Approve payment" on the pay page.
 *
 * - Waits `slowApprovalMs` first (3-D-Secure-like), then decides at that later instant.
 * - `open` and not expired: `decline` knob → `declined` + `payment.declined`; otherwise
 *   `captured` with a new `sbx_pay_…` id and `captured_at` + `payment.captured` (less than the
 *   checkout's amount with the `shortCaptureMinor` knob).
 * - `open` but past `expires_at`: → `expired` + `checkout.expired`, unless the
 *   `captureAfterExpiry` knob is on, in which case it captures (a payment landing late).
 * - `expired` / `cancelled`: unchanged, unless `captureAfterExpiry` → captured.
 * - `captured` / `refunded` / `declined`: unchanged (pressing twice never charges twice).
 *
 * @param opts.now the instant the approval starts (default: now); tests inject it.
 * @throws {SandboxPspError} `not_found`
 */
export async function approve(checkoutId: string, opts: { now?: Date } = {}): Promise<SandboxActionResult> {
  const found = await checkoutWithGlobals(db(), checkoutId, false);
  if (!found) throw notFound(checkoutId);
  const current = found.checkout;
  const faults = mergeFaults(found.globalOverrides, readFaultOverrides(current.faults));
  const closed = current.status !== "open" && !(faults.captureAfterExpiry && (current.status === "expired" || current.status === "cancelled"));
  if (closed) return { outcome: "unchanged", checkout: current };

  if (faults.slowApprovalMs > 0) await sleep(faults.slowApprovalMs);

  return db().transaction(async (tx) => {
    const c = await lockCheckout(tx, checkoutId);
    // The PSP's clock is its database's (lib/clock.ts), whichever process serves the pay page.
    const at = opts.now ? new Date(opts.now.getTime() + faults.slowApprovalMs) : await databaseNow(tx);
    if (c.status === "open") {
      if (isPastExpiry(c, at) && !faults.captureAfterExpiry) {
        return { outcome: "expired", checkout: await expireOrCancel(tx, c, "expired", faults, at) };
      }
      if (faults.decline) {
        return { outcome: "declined", checkout: await transition(tx, c, { status: "declined" }, "payment.declined", faults, at) };
      }
      return { outcome: "captured", checkout: await capture(tx, c, faults, at) };
    }
    if ((c.status === "expired" || c.status === "cancelled") && faults.captureAfterExpiry && !faults.decline) {
      return { outcome: "captured", checkout: await capture(tx, c, faults, at) };
    }
    return { outcome: "unchanged", checkout: c };
  });
}

/**
 * The fan pressed "Decline" on the pay page: an open checkout becomes `declined` and a
 * `payment.declined` webhook is enqueued (an open checkout already past its expiry becomes
 * `expired` + `checkout.expired` instead). Anything else is unchanged.
 * @throws {SandboxPspError} `not_found`
 */
export async function decline(checkoutId: string, opts: { now?: Date } = {}): Promise<SandboxActionResult> {
  return db().transaction(async (tx) => {
    const { checkout: c, globalOverrides } = await lockCheckoutWithGlobals(tx, checkoutId);
    const at = await databaseNow(tx, opts.now);
    if (c.status !== "open") return { outcome: "unchanged", checkout: c };
    const faults = mergeFaults(globalOverrides, readFaultOverrides(c.faults));
    if (isPastExpiry(c, at)) return { outcome: "expired", checkout: await expireOrCancel(tx, c, "expired", faults, at) };
    return { outcome: "declined", checkout: await transition(tx, c, { status: "declined" }, "payment.declined", faults, at) };
  });
}

async function close(checkoutId: string, status: "expired" | "cancelled", at: Date): Promise<SandboxActionResult> {
  return db().transaction(async (tx) => {
    const { checkout: c, globalOverrides } = await lockCheckoutWithGlobals(tx, checkoutId);
    if (c.status !== "open") return { outcome: "unchanged", checkout: c };
    const faults = mergeFaults(globalOverrides, readFaultOverrides(c.faults));
    return { outcome: status, checkout: await expireOrCancel(tx, c, status, faults, at) };
  });
}

/**
 * The merchant (the app) cancels an open checkout so it can no longer be paid: → `cancelled`
 * + a `checkout.expired` webhook. Harmless on a closed or paid checkout (unchanged).
 * Note: the `captureAfterExpiry` knob still lets a late approval capture it.
 * @throws {SandboxPspError} `not_found`
 */
export function cancel(checkoutId: string, opts: { now?: Date } = {}): Promise<SandboxActionResult> {
  return close(checkoutId, "cancelled", opts.now ?? new Date());
}

/**
 * Expires an open checkout now, whatever its `expires_at` (the PSP's own expiry):
 * → `expired` + `checkout.expired`. Harmless on a closed or paid checkout (unchanged).
 * @throws {SandboxPspError} `not_found`
 */
export function expire(checkoutId: string, opts: { now?: Date } = {}): Promise<SandboxActionResult> {
  return close(checkoutId, "expired", opts.now ?? new Date());
}

/**
 * The PSP's expiry sweep: every open checkout whose `expires_at` is before `now` becomes
 * `expired` with a `checkout.expired` webhook. Safe to run from several processes
 * (`FOR UPDATE SKIP LOCKED`).
 * @param opts.checkoutIds only these checkouts (tests).
 * @returns how many checkouts were expired.
 */
export async function expireDueCheckouts(opts: { now?: Date; limit?: number; checkoutIds?: string[] } = {}): Promise<number> {
  const globalOverrides = await readGlobalOverrides(db());
  return db().transaction(async (tx) => {
    const at = await databaseNow(tx, opts.now);
    const filters = [eq(sandboxCheckouts.status, "open"), lt(sandboxCheckouts.expiresAt, at)];
    if (opts.checkoutIds) filters.push(inArray(sandboxCheckouts.id, opts.checkoutIds));
    const due = await tx
      .select()
      .from(sandboxCheckouts)
      .where(and(...filters))
      .orderBy(asc(sandboxCheckouts.expiresAt))
      .limit(opts.limit ?? 100)
      .for("update", { skipLocked: true });
    for (const c of due) await expireOrCancel(tx, c, "expired", mergeFaults(globalOverrides, readFaultOverrides(c.faults)), at);
    return due.length;
  });
}

/**
 * Refunds a captured payment, in full or in part. A refund of what remains (the default when
 * no amount is given) is the full refund: `captured` → `refunded` with a new `sbx_re_…` id and
 * a `payment.refunded` webhook. A smaller amount is a partial refund: a `sandbox_psp.refunds`
 * row, the checkout stays `captured` with `refundedMinor` raised (no webhook: like Stripe's
 * `charge.refunded` for a partial refund, the app learns it from its own request and the ledger).
 * Idempotent per key: the same key returns the same refund (a different amount under it is
 * `idempotency_conflict`); refunding an already refunded payment (any key) returns the full
 * refund's id and sends nothing.
 * @param opts.amountMinor minor units, 1 … what remains (default: what remains).
 * @throws {SandboxPspError} `not_found` for an unknown payment id; `not_refundable` when the
 *   checkout was never captured; `invalid_request` for an amount over what remains or another currency.
 */
export async function refund(
  paymentId: string,
  idempotencyKey: string,
  opts: { amountMinor?: number; currency?: string; reason?: string; now?: Date } = {},
): Promise<{ refundId: string; checkout: SandboxCheckout }> {
  if (!idempotencyKey) throw new SandboxPspError("invalid_request", "idempotencyKey is required");
  const at = opts.now ?? new Date();
  return db().transaction(async (tx) => {
    const [row] = await tx
      .select({ checkout: sandboxCheckouts, globals: globalFaultsField })
      .from(sandboxCheckouts)
      .where(eq(sandboxCheckouts.paymentId, paymentId))
      .for("update");
    const c = row?.checkout;
    const globalOverrides = readFaultOverrides(row?.globals);
    if (!c) throw new SandboxPspError("not_found", `No sandbox payment ${paymentId}`);
    if (opts.currency !== undefined && opts.currency !== c.currency) {
      throw new SandboxPspError("invalid_request", `Payment ${paymentId} is in ${c.currency}, not ${opts.currency}`);
    }
    const [earlier] = await tx.select().from(sandboxRefunds).where(and(eq(sandboxRefunds.checkoutId, c.id), eq(sandboxRefunds.idempotencyKey, idempotencyKey)));
    if (earlier) {
      if (opts.amountMinor !== undefined && opts.amountMinor !== earlier.amountMinor) {
        throw new SandboxPspError("idempotency_conflict", `Refund key ${idempotencyKey} was used for another refund (${earlier.amountMinor} ${c.currency})`);
      }
      return { refundId: earlier.id, checkout: c };
    }
    if (c.status === "refunded" && c.refundId) return { refundId: c.refundId, checkout: c };
    if (c.status !== "captured") throw new SandboxPspError("not_refundable", `Payment ${paymentId} is ${c.status}, not captured`);
    const remaining = c.amountMinor - c.refundedMinor;
    const amount = opts.amountMinor ?? remaining;
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > remaining) {
      throw new SandboxPspError("invalid_request", `A refund of ${paymentId} is 1 … ${remaining} ${c.currency} (what remains of ${c.amountMinor}), not ${amount}`);
    }
    const refundId = sandboxId("sbx_re");
    await tx.insert(sandboxRefunds).values({ id: refundId, checkoutId: c.id, amountMinor: amount, idempotencyKey, reason: opts.reason ?? "", createdAt: at });
    if (amount < remaining) {
      const [updated] = await tx
        .update(sandboxCheckouts)
        .set({ refundedMinor: c.refundedMinor + amount, lastRefundAt: at, updatedAt: at })
        .where(and(eq(sandboxCheckouts.id, c.id), eq(sandboxCheckouts.status, "captured")))
        .returning();
      return { refundId, checkout: updated! };
    }
    const faults = mergeFaults(globalOverrides, readFaultOverrides(c.faults));
    const updated = await transition(
      tx,
      c,
      { status: "refunded", refundId, refundedAt: at, refundIdempotencyKey: idempotencyKey, refundedMinor: c.amountMinor, lastRefundAt: at },
      "payment.refunded",
      faults,
      at,
    );
    return { refundId, checkout: updated };
  });
}

// ─── Ledger API ───────────────────────────────────────────────────────────────

/** One page of {@link listPayments} (or, with `T` the ledger's fields only, of {@link listLedgerRecords}). */
export interface SandboxPaymentPage<T = SandboxCheckout> {
  data: T[];
  /** Pass as `after` for the next page; null on the last one. */
  nextAfter: string | null;
}

/** What the ledger says about one payment: {@link listLedgerRecords}'s rows. */
export type SandboxLedgerRecord = Pick<SandboxCheckout, "id" | "orderId" | "status" | "paymentId" | "amountMinor" | "currency" | "capturedAt" | "refundedAt" | "refundId" | "refundedMinor">;

/** Options of the list API: the window (`from` inclusive, `to` exclusive), the page size, and where the page starts. */
export interface SandboxListOptions {
  from: Date;
  to: Date;
  /** Rows per page: default 500, at most 1,000. */
  limit?: number;
  /** The `nextAfter` of the previous page (null or absent: the first page). */
  after?: string | null;
}

/**
 * The list API's three parts, in order, each paged along its own index
 * (db/sandbox-psp-schema.ts: `checkouts_captured_idx`, `checkouts_last_refund_idx`,
 * `checkouts_refunded_idx`, on (time, id)): payments captured in the window; the others whose
 * latest refund is in it; the others refunded in full in it (a full refund sets both times,
 * so only records without the latest refund's time are left for the third).
 */
const LEDGER_PARTS = [sandboxCheckouts.capturedAt, sandboxCheckouts.lastRefundAt, sandboxCheckouts.refundedAt] as const;

/** A page cursor: the part, and the last row listed in it (its time as text, UTC, microseconds; its id). */
const LEDGER_CURSOR = /^([0-2])\|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\|(.+)$/;

/**
 * One page of the list API (see {@link listPayments}), each record as `fields` (name → column).
 * Each page is one statement: for each part from the cursor's on, an index range scan from the
 * cursor (its rows after the cursor's, in (time, id) order, at most a page), the parts' rows one
 * after the other. Paging by id instead (as this did before) sorted the whole window for every
 * page: a window of N payments cost N²/page rows read, every reconciliation pass of an on-sale.
 * Keys only grow (a capture's time is set once, the latest refund's moves later), so a record
 * in the window when the listing starts and still in it at the end is listed, and at most
 * once per later refund (callers keep the last).
 * @throws {SandboxPspError} `invalid_request` for an `after` this API did not hand out.
 */
async function ledgerPage<T>(opts: SandboxListOptions, fields: Record<string, PgColumn>): Promise<SandboxPaymentPage<T>> {
  const limit = Math.min(Math.max(1, opts.limit ?? 500), 1_000);
  let cursor: { part: number; key: string | null; id: string | null } = { part: 0, key: null, id: null };
  if (opts.after) {
    const m = LEDGER_CURSOR.exec(opts.after);
    if (!m) throw new SandboxPspError("invalid_request", "after: not a page cursor of this list");
    cursor = { part: Number(m[1]), key: m[2]!, id: m[3]! };
  }
  const from = opts.from.toISOString();
  const to = opts.to.toISOString();
  const inWindow = (column: PgColumn) => dsql`(${column} >= ${from}::timestamptz and ${column} < ${to}::timestamptz)`;
  const outside = (column: PgColumn) => dsql`(${column} is null or not ${inWindow(column)})`;
  const columns = Object.entries(fields);
  const select = dsql.join(
    columns.map(([name, column]) => dsql`${column} as ${dsql.identifier(name)}`),
    dsql`, `,
  );
  const parts: SQL[] = [];
  for (let part = cursor.part; part < LEDGER_PARTS.length; part++) {
    const column = LEDGER_PARTS[part]!;
    const fromCursor = part === cursor.part && cursor.id !== null ? dsql`(${column}, ${sandboxCheckouts.id}) > (${cursor.key}::timestamptz, ${cursor.id})` : undefined;
    const where = and(dsql`${sandboxCheckouts.paymentId} is not null`, inWindow(column), ...LEDGER_PARTS.slice(0, part).map(outside), fromCursor);
    parts.push(dsql`(select ${select}, ${part}::int as ledger_part, ${column} as ledger_at,
                       to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ledger_key, ${sandboxCheckouts.id} as ledger_id
                     from ${sandboxCheckouts} where ${where} order by ${column}, ${sandboxCheckouts.id} limit ${limit + 1})`);
  }
  // Raw rows, each field mapped by its column as drizzle's select would: its own generic row
  // mapping made a listing of 2,000 payments' ledger fields cost ~1.7× the CPU (25 against 15 ms).
  const rows = (await db().execute(
    dsql`${dsql.join(parts, dsql` union all `)} order by ledger_part, ledger_at, ledger_id limit ${limit + 1}`,
  )) as unknown as Record<string, unknown>[];
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return {
    data: page.map((row) => {
      const record: Record<string, unknown> = {};
      for (const [name, column] of columns) {
        const value = row[name];
        record[name] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      }
      return record as T;
    }),
    nextAfter: more && last ? `${String(last.ledger_part)}|${String(last.ledger_key)}|${String(last.ledger_id)}` : null,
  };
}

/**
 * The PSP's list API over its own records: checkouts with a payment captured or refunded
 * (in full or in part) at or after `from` and before `to`, one page at a time (at most `limit`,
 * default 500, max 1,000), as an outside PSP's "list payments" endpoint pages through its
 * ledger: those captured in the window by capture time, then the others by their latest
 * refund's time (see {@link ledgerPage}). A record refunded again while the list is read may
 * come twice (its latest state last).
 * @param opts.after the `nextAfter` of the previous page.
 * @throws {SandboxPspError} `invalid_request` for an `after` that is no page cursor.
 */
export async function listPayments(opts: SandboxListOptions): Promise<SandboxPaymentPage> {
  return ledgerPage<SandboxCheckout>(opts, getTableColumns(sandboxCheckouts));
}

/**
 * {@link listPayments} with the ledger's fields only (what a payment was, and what of it was
 * given back): what reconciliation reads every pass, every capture of an on-sale so far
 * (docs/adr/0010). Whole records (texts, keys, fault knobs, five times) cost the worker ~3×
 * the CPU: 43 against 15 ms to list 2,000 payments.
 * @throws {SandboxPspError} `invalid_request` for an `after` that is no page cursor.
 */
export async function listLedgerRecords(opts: SandboxListOptions): Promise<SandboxPaymentPage<SandboxLedgerRecord>> {
  const c = sandboxCheckouts;
  return ledgerPage<SandboxLedgerRecord>(opts, {
    id: c.id,
    orderId: c.orderId,
    status: c.status,
    paymentId: c.paymentId,
    amountMinor: c.amountMinor,
    currency: c.currency,
    capturedAt: c.capturedAt,
    refundedAt: c.refundedAt,
    refundId: c.refundId,
    refundedMinor: c.refundedMinor,
  });
}

// ─── Webhook queue ────────────────────────────────────────────────────────────

/**
 * Enqueues one event's deliveries: due `webhookDelayMs` after `at`, `1 + duplicate` rows
 * sharing one event id, `dropped` for a capture under the `drop` knob, and under `reorder`
 * the checkout's still-pending earlier events are pushed behind this one (latest first).
 */
async function enqueueEvent(tx: Tx, c: SandboxCheckout, type: SandboxEventType, faults: SandboxFaults, at: Date): Promise<void> {
  const eventId = sandboxId("sbx_evt");
  const payload: SandboxWebhookPayload = {
    id: eventId,
    object: "event",
    type,
    created: Math.floor(at.getTime() / 1000),
    data: { checkout: checkoutResource(c) },
  };
  const deliverAt = new Date(at.getTime() + faults.webhookDelayMs);
  if (faults.reorder) await pushPendingBehind(tx, c.id, deliverAt);
  const dropped = faults.drop && type === "payment.captured";
  await tx.insert(sandboxWebhookDeliveries).values(
    Array.from({ length: 1 + faults.duplicate }, () => ({
      checkoutId: c.id,
      eventId,
      type,
      payload: payload as unknown as Record<string, unknown>,
      deliverAt,
      dropped,
      failFirstAttempts: faults.failWebhookTimes,
    })),
  );
}

/** `reorder`: pending events of the checkout become due after `deliverAt`, newest first. */
async function pushPendingBehind(tx: Tx, checkoutId: string, deliverAt: Date): Promise<void> {
  const pending = await tx
    .select({ eventId: sandboxWebhookDeliveries.eventId })
    .from(sandboxWebhookDeliveries)
    .where(
      and(
        eq(sandboxWebhookDeliveries.checkoutId, checkoutId),
        isNull(sandboxWebhookDeliveries.deliveredAt),
        eq(sandboxWebhookDeliveries.dropped, false),
      ),
    )
    .orderBy(asc(sandboxWebhookDeliveries.id));
  const events = [...new Set(pending.map((p) => p.eventId))].reverse();
  for (const [i, eventId] of events.entries()) {
    const later = new Date(deliverAt.getTime() + REORDER_GAP_MS * (i + 1));
    await tx
      .update(sandboxWebhookDeliveries)
      .set({ deliverAt: dsql`greatest(${sandboxWebhookDeliveries.deliverAt}, ${later.toISOString()}::timestamptz)` })
      .where(
        and(
          eq(sandboxWebhookDeliveries.checkoutId, checkoutId),
          eq(sandboxWebhookDeliveries.eventId, eventId),
          isNull(sandboxWebhookDeliveries.deliveredAt),
        ),
      );
  }
}

/** Backoff before retry number `attempt` (1-based count of failed attempts so far): 1 s, 2 s, 4 s, … capped at 60 s. */
export function webhookRetryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt - 1), MAX_WEBHOOK_BACKOFF_MS);
}

/**
 * Sends one webhook. Resolve with the app's HTTP status (any status; non-2xx is retried);
 * reject on a network error (also retried). `headers` are lower-case names.
 */
export type SandboxWebhookDeliver = (url: string, body: string, headers: Record<string, string>) => Promise<{ status: number; body?: string }>;

/** The default {@link SandboxWebhookDeliver}: `fetch` POST with a 10 s timeout, no redirects followed. */
const fetchDeliver: SandboxWebhookDeliver = async (url, body, headers) => {
  const res = await fetch(url, { method: "POST", body, headers, redirect: "manual", signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
  const text = await res.text().catch(() => "");
  return { status: res.status, body: text.slice(0, 500) };
};

/** Options of {@link dispatchDueWebhooks}. */
export interface DispatchOptions {
  /** A test's simulated "now" for what is due and for scheduling retries (default: Postgres's `now()`, the PSP's clock). Signatures always use the real clock. */
  now?: Date;
  /** How to send (default {@link fetchDeliver}). */
  deliver?: SandboxWebhookDeliver;
  /** Target URL (default {@link sandboxWebhookUrl}). */
  url?: string;
  /** At most this many deliveries per call (default 100). */
  limit?: number;
  /** Only deliveries of these checkouts (tests and the simulator, so runs sharing a database do not steal each other's webhooks). */
  checkoutIds?: string[];
  /** Signing secret (default {@link SANDBOX_WEBHOOK_SECRET}). */
  secret?: string;
}

/** One delivery attempt made by {@link dispatchDueWebhooks}. */
export interface DispatchAttempt {
  deliveryId: number;
  checkoutId: string;
  eventId: string;
  type: SandboxEventType;
  /** 1-based attempt number. */
  attempt: number;
  ok: boolean;
  status: number | null;
  error: string | null;
  /** When it will be tried again (null when delivered or given up). */
  retryAt: Date | null;
}

/** What one dispatch pass did. */
export interface DispatchResult {
  /** Deliveries claimed (due, undelivered, not dropped, attempts left). */
  claimed: number;
  delivered: number;
  failed: number;
  attempts: DispatchAttempt[];
}

type ClaimedRow = {
  id: string | number;
  checkout_id: string;
  event_id: string;
  type: SandboxEventType;
  /** jsonb as text: drizzle reconfigures the shared postgres.js client's type parsers, so nothing here relies on them. */
  payload_text: string;
  attempts: number;
  fail_first_attempts: number;
  /** Epoch milliseconds of the original deliver_at (for ordering). */
  due_ms: string | number;
};

/**
 * Delivers every due webhook once: claims due, undelivered, non-dropped deliveries with
 * attempts left (`FOR UPDATE SKIP LOCKED`, then a 30 s lease so parallel dispatchers never
 * send the same row at once), signs each body (`x-sandbox-signature: t=…,v1=…`) and calls
 * `deliver`. A checkout's deliveries go out in `deliver_at` order, one event after the other;
 * the copies of one duplicated event go out concurrently; different checkouts in parallel.
 * A 2xx marks the row delivered; anything else (or a throw, or a simulated failure from the
 * `failWebhookTimes` knob) schedules a retry after {@link webhookRetryDelayMs}, up to
 * {@link MAX_WEBHOOK_ATTEMPTS} attempts. Never throws because of the app's answer; throws only
 * when the PSP's own database fails.
 */
export async function dispatchDueWebhooks(opts: DispatchOptions = {}): Promise<DispatchResult> {
  // Due by the PSP's clock (its database's, as `deliver_at` is written): a dispatcher process
  // whose clock runs behind holds no webhook back (docs/adr/0024).
  const now = sqlNow(opts.now);
  const deliver = opts.deliver ?? fetchDeliver;
  const url = opts.url ?? sandboxWebhookUrl();
  const secret = opts.secret ?? SANDBOX_WEBHOOK_SECRET();
  const limit = opts.limit ?? 100;
  const q = sql();
  const dueBy = opts.now ? q`${opts.now.toISOString()}::timestamptz` : q`now()`;
  const onlyCheckouts = opts.checkoutIds ? q`and checkout_id = any(${q.array(opts.checkoutIds)}::text[])` : q``;

  const claimed = await q<ClaimedRow[]>`
    with due as (
      select id, deliver_at
        from sandbox_psp.webhook_deliveries
       where delivered_at is null and dropped = false and attempts < ${MAX_WEBHOOK_ATTEMPTS}
         and deliver_at <= ${dueBy} ${onlyCheckouts}
       order by deliver_at, id
       limit ${limit}
         for update skip locked
    )
    update sandbox_psp.webhook_deliveries d
       set attempts = d.attempts + 1, deliver_at = ${dueBy} + ${CLAIM_LEASE_MS} * interval '1 millisecond'
      from due
     where d.id = due.id
    returning d.id, d.checkout_id, d.event_id, d.type, d.payload::text as payload_text, d.attempts, d.fail_first_attempts,
              extract(epoch from due.deliver_at) * 1000 as due_ms`;

  const rows = [...claimed].sort((a, b) => Number(a.due_ms) - Number(b.due_ms) || Number(a.id) - Number(b.id));
  const byCheckout = new Map<string, ClaimedRow[][]>();
  for (const row of rows) {
    const events = byCheckout.get(row.checkout_id) ?? [];
    const last = events.at(-1);
    if (last && last[0]!.event_id === row.event_id) last.push(row);
    else events.push([row]);
    byCheckout.set(row.checkout_id, events);
  }

  const attempts: DispatchAttempt[] = [];
  const attemptOne = async (row: ClaimedRow): Promise<void> => {
    let status: number | null = null;
    let error: string | null = null;
    if (row.attempts <= row.fail_first_attempts) {
      error = `simulated endpoint failure (failWebhookTimes=${row.fail_first_attempts})`;
    } else {
      const body = JSON.stringify(JSON.parse(row.payload_text));
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "StarArena-Sandbox-PSP/1.0",
        [SANDBOX_SIGNATURE_HEADER]: signWebhookBody(body, { secret }),
        "x-sandbox-event-id": row.event_id,
        "x-sandbox-delivery-id": String(row.id),
        "x-sandbox-delivery-attempt": String(row.attempts),
      };
      try {
        const res = await deliver(url, body, headers);
        status = res.status;
        if (status < 200 || status > 299) error = `HTTP ${status}${res.body ? `: ${res.body.slice(0, 300)}` : ""}`;
      } catch (e) {
        error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      }
    }
    const id = Number(row.id);
    if (error === null) {
      await db()
        .update(sandboxWebhookDeliveries)
        .set({ deliveredAt: now, lastStatus: status, lastError: null })
        .where(eq(sandboxWebhookDeliveries.id, id));
      attempts.push({ deliveryId: id, checkoutId: row.checkout_id, eventId: row.event_id, type: row.type, attempt: row.attempts, ok: true, status, error, retryAt: null });
      return;
    }
    const givingUp = row.attempts >= MAX_WEBHOOK_ATTEMPTS;
    const [scheduled] = await db()
      .update(sandboxWebhookDeliveries)
      .set({
        lastStatus: status,
        lastError: givingUp ? `${error} (gave up after ${row.attempts} attempts)` : error,
        deliverAt: givingUp ? now : dsql`${now} + ${webhookRetryDelayMs(row.attempts)} * interval '1 millisecond'`,
      })
      .where(eq(sandboxWebhookDeliveries.id, id))
      .returning({ deliverAt: sandboxWebhookDeliveries.deliverAt });
    const retryAt = givingUp ? null : (scheduled?.deliverAt ?? null);
    attempts.push({ deliveryId: id, checkoutId: row.checkout_id, eventId: row.event_id, type: row.type, attempt: row.attempts, ok: false, status, error, retryAt });
  };

  await Promise.all(
    [...byCheckout.values()].map(async (events) => {
      for (const copies of events) await Promise.all(copies.map(attemptOne));
    }),
  );

  const delivered = attempts.filter((a) => a.ok).length;
  return { claimed: rows.length, delivered, failed: attempts.length - delivered, attempts };
}

/** This checkout's webhook deliveries, oldest first (tests, the simulator, debugging). */
export async function listDeliveries(checkoutId: string): Promise<SandboxWebhookDelivery[]> {
  return db()
    .select()
    .from(sandboxWebhookDeliveries)
    .where(eq(sandboxWebhookDeliveries.checkoutId, checkoutId))
    .orderBy(asc(sandboxWebhookDeliveries.id));
}

// ─── Background dispatcher ────────────────────────────────────────────────────

const globalForDispatcher = globalThis as unknown as { __sandboxPspDispatcher?: () => Promise<void> };

/** Most dispatcher passes in flight at once in one process (each delivers up to 100 webhooks). */
const MAX_PASSES_IN_FLIGHT = 4;
/** A pass still running after this long (ms) stops counting against that limit; its claims are leased anyway. */
const PASS_WATCHDOG_MS = 20_000;

/**
 * Starts the PSP's background loop in this process: every `intervalMs` (default 250 ms) a
 * pass expires overdue checkouts ({@link expireDueCheckouts}) and delivers due webhooks
 * ({@link dispatchDueWebhooks}). Passes overlap (at most {@link MAX_PASSES_IN_FLIGHT}):
 * one slow endpoint answer must not hold back every webhook behind it, as a real PSP's
 * senders do not wait for each other; claims are leased, so overlapping passes never
 * deliver a row twice, and the app copes with webhooks out of order. It never throws:
 * errors are logged with `console.error` and the loop goes on. Starting twice in one
 * process (e.g. hot reload) returns the running loop's stop function.
 * @returns `stop()`: no new passes start; resolves once the passes in flight have finished.
 */
export function startSandboxDispatcher(
  opts: {
    intervalMs?: number;
    deliver?: SandboxWebhookDeliver;
    url?: string;
    /** Only these checkouts (tests sharing a database); default: all. */
    checkoutIds?: string[];
  } = {},
): () => Promise<void> {
  if (globalForDispatcher.__sandboxPspDispatcher) return globalForDispatcher.__sandboxPspDispatcher;
  const intervalMs = opts.intervalMs ?? 250;
  const batch = 100;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const inFlight = new Set<Promise<void>>();

  const pass = async (): Promise<boolean> => {
    let more = false;
    try {
      const expired = await expireDueCheckouts({ limit: batch, checkoutIds: opts.checkoutIds });
      const result = await dispatchDueWebhooks({ deliver: opts.deliver, url: opts.url, limit: batch, checkoutIds: opts.checkoutIds });
      more = expired === batch || result.claimed === batch;
    } catch (error) {
      console.error("[sandbox-psp] dispatcher pass failed:", error);
    }
    return more;
  };
  const tick = () => {
    if (stopped) return;
    if (inFlight.size < MAX_PASSES_IN_FLIGHT) {
      const slot: { running?: Promise<void> } = {};
      const watchdog = setTimeout(() => {
        if (slot.running && inFlight.delete(slot.running)) console.error(`[sandbox-psp] a dispatcher pass has run for ${PASS_WATCHDOG_MS / 1000} s; starting others meanwhile`);
      }, PASS_WATCHDOG_MS);
      watchdog.unref?.();
      const running: Promise<void> = pass().then((more) => {
        clearTimeout(watchdog);
        inFlight.delete(running);
        if (more) tick(); // a full batch: there may be more due right now
      });
      slot.running = running;
      inFlight.add(running);
    }
  };
  const loop = () => {
    tick();
    if (stopped) return;
    timer = setTimeout(loop, intervalMs);
    timer.unref?.();
  };
  loop();

  const stop = async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (globalForDispatcher.__sandboxPspDispatcher === stop) globalForDispatcher.__sandboxPspDispatcher = undefined;
    await Promise.all([...inFlight]);
  };
  globalForDispatcher.__sandboxPspDispatcher = stop;
  return stop;
}
