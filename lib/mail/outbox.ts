/**
 * Enqueuing e-mail (docs/design.md "E-mail"): a message is a row of `emails` written in the same
 * transaction as the change it tells the fan about, so a committed change always gets its
 * message and a rolled-back one never does; the worker sends it later (./deliver.ts), never on a
 * request's critical path. A dedupe key per cause keeps retried changes from sending twice.
 */
import { sql } from "drizzle-orm";
import { emails } from "@/db/schema";
import type { Db } from "@/lib/db";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** The messages StarArena sends, with what each needs to be rendered (./messages.ts). */
export interface EmailPayloads {
  /** Tickets issued: the confirmation with every ticket's QR code and short code. */
  order_confirmation: { orderId: string };
  /** New codes for the order's tickets: the old ones no longer let anyone in. */
  tickets_reissued: { orderId: string };
  /**
   * The order was refunded (amount in minor units). A partial refund (docs/adr/0020) names the
   * refunded tickets' seats in `seats`; without it the whole order was refunded.
   */
  order_refunded: { orderId: string; amountMinor: number; currency: string; seats?: string[] };
  /** A password-reset link from the auth library (valid for its own time, 1 h by default). */
  password_reset: { url: string; name: string };
  /** The link that confirms a new account's address and signs it in (the auth library's, lib/auth). */
  email_verification: { url: string; name: string };
  /** Someone signed up with the address of an existing account: its owner may sign in or reset the password (ADR 0027). */
  sign_up_existing: { name: string };
}
/** One of the message kinds. */
export type EmailKind = keyof EmailPayloads;

/**
 * Queues a message to `toAddress` inside `tx`; a second call with the same `dedupeKey` keeps
 * the first. @returns the builder (it runs when awaited, so it can sit in a pipeline).
 */
export function enqueueEmail<K extends EmailKind>(tx: Tx, kind: K, payload: EmailPayloads[K], toAddress: string, dedupeKey: string): PromiseLike<unknown> {
  return tx.insert(emails).values({ kind, toAddress, payload, dedupeKey }).onConflictDoNothing({ target: emails.dedupeKey });
}

/** Queues a message to the account `userId` (its address as of now), inside `tx`; nothing for an unknown account. */
export function enqueueEmailToUser<K extends EmailKind>(tx: Tx, kind: K, payload: EmailPayloads[K], userId: string, dedupeKey: string): PromiseLike<unknown> {
  return tx.execute(
    sql`insert into emails (kind, to_address, payload, dedupe_key)
        select ${kind}, u.email, ${JSON.stringify(payload)}::jsonb, ${dedupeKey} from "user" u where u.id = ${userId}
        on conflict (dedupe_key) do nothing`,
  );
}
