"use server";
/**
 * Server actions of the order page: go to the PSP to pay, or give the seats back. A
 * refusal comes back as `{ ok: false, error, code }` (lib/http/action.ts).
 */
import { redirect } from "next/navigation";
import { z } from "zod";
import { db } from "@/lib/db";
import { action } from "@/lib/http/action";
import { orderIdSchema } from "@/lib/ids";
import { defaultProvider } from "@/lib/payments";
import { startCheckout } from "@/lib/payments/checkout";
import { giveSeatsBack } from "@/lib/payments/expiry";

/** Starts the checkout and sends the fan to the PSP's pay page. */
export const payAction = action({ who: "user", args: z.tuple([orderIdSchema]) }, async ({ user }, orderId): Promise<never> => {
  const { url } = await startCheckout(db(), defaultProvider(), { orderId, fanId: user.id });
  redirect(url);
});

/** Gives the held seats back (order → cancelled, after asking the PSP). */
export const cancelAction = action({ who: "user", args: z.tuple([orderIdSchema]) }, async ({ user }, orderId) => {
  await giveSeatsBack(db(), orderId, user.id);
  return { ok: true as const };
});
